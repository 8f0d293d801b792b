import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import javax.json.JsonArray;
import javax.json.JsonObject;
import javax.json.JsonValue;

import com.ibm.maximo.oslc.ResourceSet;

// The client's Aggregation: gbcols from groupByOn/count/sumOn/avgOn/minOn/maxOn, gbfilter from having (with the
// aliases it maps back), gbsortby from sortBy. Compared with the plain group-by filtered and sorted by hand.
final class GroupBySteps {

    private static final String WO = "mxapiwodetail";

    private GroupBySteps() {
    }

    static List<Step> steps() {
        return List.of(
                new Step("groupBy with count and sum, having on the count and sortBy descending", GroupBySteps::havingAndSort),
                new Step("groupBy of a where with avg, min and max, sortBy ascending on an aggregate", GroupBySteps::whereAndAggregates));
    }

    private static List<JsonObject> rows(JsonArray array) {
        Check.isTrue("processGroupBy answered (it answers null when the request failed; see stderr)", array != null);
        List<JsonObject> rows = new ArrayList<>();
        for (JsonValue row : array) {
            rows.add(row.asJsonObject());
        }
        return rows;
    }

    private static void havingAndSort(Target t) throws Exception {
        List<JsonObject> groups = rows(t.wilson().resourceSet(WO).groupBy().groupByOn("status").count("cnt").sumOn("estdur", "dur")
                .having("cnt>60").sortBy("-cnt").processGroupBy());

        List<JsonObject> expected = new ArrayList<>();
        for (JsonObject group : rows(t.plain.array("/os/" + WO + "?gbcols=status,count.*,sum.estdur"))) {
            if (group.getInt("count") > 60) {
                expected.add(group);
            }
        }
        expected.sort(Comparator.comparing((JsonObject group) -> group.getInt("count")).reversed());
        Check.isTrue("the filter keeps some groups, not all", !expected.isEmpty() && expected.size() < 8);
        Check.equal("statuses, by count", Members.values(expected, "status"), Members.values(groups, "status"));
        Check.equal("counts", Members.values(expected, "count"), Members.values(groups, "count"));
        Check.equal("sums", Members.values(expected, "sum_estdur"), Members.values(groups, "sum_estdur"));
        for (JsonObject group : groups) {
            Check.equal("count of " + group.getString("status"), t.plain.count(WO, "status=\"" + group.getString("status") + "\""), group.getInt("count"));
        }
    }

    private static void whereAndAggregates(Target t) throws Exception {
        String where = "siteid=\"NASHUA\"";
        ResourceSet set = t.wilson().resourceSet(WO).where(where);
        List<JsonObject> groups = rows(set.groupBy().groupByOn("worktype").count().avgOn("estdur", "avgdur").minOn("wopriority").maxOn("wopriority")
                .sortBy("+avgdur").processGroupBy());

        List<JsonObject> expected = rows(t.plain.array("/os/" + WO + "?gbcols=worktype,count.*,avg.estdur,min.wopriority,max.wopriority&oslc.where=" + Plain.encode(where)));
        expected.sort(Comparator.comparing((JsonObject group) -> group.getJsonNumber("avg_estdur").doubleValue()));
        Check.isTrue("several work types", expected.size() > 2);
        Check.equal("work types, by average duration", Members.values(expected, "worktype"), Members.values(groups, "worktype"));
        for (String output : List.of("count", "avg_estdur", "min_wopriority", "max_wopriority")) {
            Check.equal(output, Members.values(expected, output), Members.values(groups, output));
        }

        int total = 0;
        for (JsonObject group : groups) {
            total += group.getInt("count");
        }
        Check.equal("the groups hold every work order of the where", t.plain.count(WO, where), total);
    }
}
