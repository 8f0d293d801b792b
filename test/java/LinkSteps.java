import java.net.URL;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import javax.json.JsonObject;

import com.ibm.maximo.oslc.Resource;
import com.ibm.maximo.oslc.ResourceSet;

// What the client follows from a record: a child collection's collectionref and a related record's href (IBM's
// own example pages a PO's poline_collectionref with new ResourceSet(URL, mc)), and lookups, which the client
// has no method for but reads as any collection URL.
final class LinkSteps {

    private static final String WO_1000 = "/os/mxapiwodetail/_QkVERk9SRC8xMDAw";

    private LinkSteps() {
    }

    static List<Step> steps() {
        return List.of(
                new Step("a child collection through its collectionref", LinkSteps::childCollection),
                new Step("relatedResource follows a related record", LinkSteps::related),
                new Step("lookup of a work order's assets (getlist~assetnum)", LinkSteps::lookupRecords),
                new Step("lookup of a domain's values (getlist~status)", LinkSteps::lookupDomain));
    }

    private static void childCollection(Target t) throws Exception {
        Resource wo = t.wilson().resource(t.home + WO_1000);
        String ref = wo.toJSON().getString("woactivity_collectionref");
        ResourceSet tasks = new ResourceSet(new URL(ref), t.wilson()).select("taskid", "description").fetch();
        List<JsonObject> expected = Members.of(t.plain.object(ref + "?oslc.select=taskid,description"));
        Check.isTrue("work order 1000 has tasks", !expected.isEmpty());
        Check.equal("task ids", Members.values(expected, "taskid"), Members.values(Members.of(tasks), "taskid"));
        Check.equal("descriptions", Members.values(expected, "description"), Members.values(Members.of(tasks), "description"));
        Check.equal("totalCount", expected.size(), tasks.totalCount());
    }

    private static void related(Target t) throws Exception {
        Resource wo = t.wilson().resource(t.home + WO_1000, "wonum", "assetnum", "asset.description");
        wo.setLoaded(true);
        Resource asset = wo.relatedResource("asset");
        Check.isTrue("the related record's href: " + wo.toJSON(), asset != null);
        JsonObject read = asset.toJSON();
        Check.equal("its assetnum", wo.toJSON().getString("assetnum"), read.getString("assetnum"));
        Check.equal("its description", wo.toJSON().getJsonObject("asset").getString("description"), read.getString("description"));
        Check.equal("its site", "BEDFORD", read.getString("siteid"));
    }

    private static void lookupRecords(Target t) throws Exception {
        ResourceSet assets = new ResourceSet(new URL(t.home + WO_1000 + "/getlist~assetnum"), t.wilson()).select("assetnum", "siteid", "status").pageSize(1000).fetch();
        List<JsonObject> members = Members.of(assets);
        Check.equal("the assets a work order of BEDFORD may name", t.plain.count("mxapiasset", "siteid=\"BEDFORD\" and status!=\"DECOMMISSIONED\""), members.size());
        Check.equal("their site", Set.of("BEDFORD"), new HashSet<>(Members.values(members, "siteid")));
        Check.isTrue("none decommissioned", !Members.values(members, "status").contains("DECOMMISSIONED"));
        Check.equal("totalCount", members.size(), assets.totalCount());
    }

    private static void lookupDomain(Target t) throws Exception {
        ResourceSet statuses = new ResourceSet(new URL(t.home + WO_1000 + "/getlist~status"), t.wilson()).fetch();
        List<String> values = Members.values(Members.of(statuses), "value");
        Check.equal("the WOSTATUS values in their order", Members.values(Members.of(t.plain.object(WO_1000 + "/getlist~status")), "value"), values);
        Check.isTrue("WAPPR and CLOSE among them: " + values, values.contains("WAPPR") && values.contains("CLOSE"));
    }
}
