import java.util.ArrayList;
import java.util.List;

import javax.json.Json;
import javax.json.JsonArray;
import javax.json.JsonObject;

import com.ibm.maximo.oslc.BulkProcessor;
import com.ibm.maximo.oslc.ResourceSet;

// The client's BulkProcessor: items {_data} to create, {_data, _meta: {method, uri, properties}} to update or
// merge, {_meta: {method: DELETE, uri}} to delete, POSTed with x-method-override: BULK.
final class BulkSteps {

    private static final String WO = "mxapiwodetail";

    private BulkSteps() {
    }

    static List<Step> steps() {
        return List.of(
                new Step("bulk create, update with properties, merge and delete", BulkSteps::bulk),
                new Step("bulk: a refused item does not hold back the others", BulkSteps::partial));
    }

    // The bulk URI is the set's, known once the set has built its URI (a fetch).
    private static ResourceSet fetched(Target t) throws Exception {
        return t.wilson().resourceSet(WO).pageSize(1).fetch();
    }

    private static JsonArray answered(JsonArray answer, int items) {
        Check.isTrue("processBulk answered (it answers null when the request failed; see stderr)", answer != null);
        Check.equal("one answer per item", items, answer.size());
        return answer;
    }

    private static String status(JsonArray answer, int item) {
        return answer.getJsonObject(item).getJsonObject("_responsemeta").getString("status");
    }

    private static void bulk(Target t) throws Exception {
        ResourceSet set = fetched(t);
        JsonArray created = answered(set.bulk().create(WriteSteps.workOrder("Java bulk 1").build()).create(WriteSteps.workOrder("Java bulk 2").build())
                .create(WriteSteps.workOrder("Java bulk 3").add("woactivity", WriteSteps.tasks(10)).build()).processBulk(), 3);
        List<String> hrefs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Check.equal("status of create " + i, "201", status(created, i));
            hrefs.add(created.getJsonObject(i).getJsonObject("_responsemeta").getString("Location"));
            Check.equal("description stored", "Java bulk " + (i + 1), t.plain.object(hrefs.get(i) + "?oslc.select=description").getString("description"));
        }

        BulkProcessor updates = set.bulk();
        for (String href : hrefs) {
            updates.update(Json.createObjectBuilder().add("description", "Java bulk updated").build(), href, "description");
        }
        JsonArray updated = answered(updates.processBulk(), 3);
        for (int i = 0; i < 3; i++) {
            Check.equal("status of update " + i, "200", status(updated, i));
            Check.equal("description answered", "Java bulk updated", updated.getJsonObject(i).getJsonObject("_responsedata").getString("description"));
            Check.equal("description stored", "Java bulk updated", t.plain.object(hrefs.get(i) + "?oslc.select=description").getString("description"));
        }

        JsonArray merged = answered(set.bulk().merge(Json.createObjectBuilder().add("woactivity", WriteSteps.tasks(20)).build(), hrefs.get(2)).processBulk(), 1);
        Check.equal("status of the merge", "204", status(merged, 0));
        Check.equal("tasks kept and added", List.of("10", "20"), WriteSteps.taskIds(t, hrefs.get(2)));

        BulkProcessor deletes = set.bulk();
        hrefs.forEach(deletes::delete);
        JsonArray deleted = answered(deletes.processBulk(), 3);
        for (int i = 0; i < 3; i++) {
            Check.equal("status of delete " + i, "204", status(deleted, i));
            Check.equal("GET of the deleted record", 404, t.plain.status(hrefs.get(i), null));
        }
    }

    private static void partial(Target t) throws Exception {
        ResourceSet set = fetched(t);
        JsonArray answer = answered(set.bulk().create(WriteSteps.workOrder("Java bulk good").build())
                .create(WriteSteps.workOrder("Java bulk bad").add("wopriority", "not a number").build()).processBulk(), 2);
        String href = answer.getJsonObject(0).getJsonObject("_responsemeta").getString("Location");
        try {
            Check.equal("status of the good item", "201", status(answer, 0));
            Check.equal("status of the bad item", "400", status(answer, 1));
            JsonObject error = answer.getJsonObject(1).getJsonObject("_responsedata").getJsonObject("Error");
            Check.equal("its error names the attribute", "wopriority", error.getString("errorattrname"));
            Check.equal("the good one is stored", 1, t.plain.count(WO, "description=\"Java bulk good\""));
            Check.equal("the bad one is not", 0, t.plain.count(WO, "description=\"Java bulk bad\""));
        }
        finally {
            t.wilson().delete(href);
        }
    }
}
