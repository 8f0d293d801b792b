import java.util.ArrayList;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import javax.json.JsonObject;

import com.ibm.maximo.oslc.QueryWhere;
import com.ibm.maximo.oslc.Resource;
import com.ibm.maximo.oslc.ResourceSet;
import com.ibm.maximo.oslc.SavedQuery;

// Queries as the client builds them (QueryWhere, select, orderBy, saved queries, search terms, extra parameters),
// each compared with a plain request and with what the filter asked for.
final class QuerySteps {

    private static final String WO = "mxapiwodetail";

    private QuerySteps() {
    }

    static List<Step> steps() {
        return List.of(
                new Step("QueryWhere with in and equalTo", QuerySteps::whereInEqual),
                new Step("QueryWhere with startsWith, gte and lte on a number, lt on a date", QuerySteps::whereRanges),
                new Step("QueryWhere with like, endsWith and gt on text", QuerySteps::whereText),
                new Step("QueryWhere on a child object (woactivity.status)", QuerySteps::whereChild),
                new Step("select with a related record ($asset.description) and a child object (woactivity.taskid)", QuerySteps::selectRelated),
                new Step("orderBy (the client sends every term descending)", QuerySteps::orderBy),
                new Step("saved query without parameters", QuerySteps::savedQuery),
                new Step("saved query with a parameter, with and without a where", QuerySteps::savedQueryParams),
                new Step("search terms with searchAttributes", QuerySteps::searchTerms),
                new Step("fetch with additional parameters", QuerySteps::additionalParams),
                new Step("fetchMember and Resource.load with properties", QuerySteps::memberProperties),
                new Step("member(i) walks a page and loads each record", QuerySteps::members));
    }

    private static void whereInEqual(Target t) throws Exception {
        ResourceSet set = t.wilson().resourceSet(WO)
                .where(new QueryWhere().where("status").in("APPR", "WAPPR").and("siteid").equalTo("BEDFORD"))
                .select("wonum", "status", "siteid").pageSize(1000).fetch();
        List<JsonObject> members = Members.of(set);
        int expected = t.plain.count(WO, "status in [\"APPR\",\"WAPPR\"] and siteid=\"BEDFORD\"");
        Check.isTrue("the demo has approved work orders at BEDFORD", expected > 20);
        Check.equal("members", expected, members.size());
        for (JsonObject member : members) {
            Check.isTrue("status of " + member, Set.of("APPR", "WAPPR").contains(member.getString("status")));
            Check.equal("siteid of " + member.getString("wonum"), "BEDFORD", member.getString("siteid"));
        }
    }

    private static void whereRanges(Target t) throws Exception {
        Date now = new Date();
        QueryWhere where = new QueryWhere().where("description").startsWith("Leak").and("wopriority").gte(2).and("wopriority").lte(4).and("reportdate").lt(now);
        ResourceSet set = t.wilson().resourceSet(WO).where(where).select("wonum", "description", "wopriority", "reportdate").pageSize(1000).fetch();
        List<JsonObject> members = Members.of(set);
        int leaks = t.plain.count(WO, "description=\"Leak%\"");
        int expected = t.plain.count(WO, "description=\"Leak%\" and wopriority>=2 and wopriority<=4");
        Check.isTrue("the priorities narrow the leaks (" + expected + " of " + leaks + ")", expected > 0 && expected < leaks);
        Check.equal("members (every demo work order was reported before now)", expected, members.size());
        for (JsonObject member : members) {
            Check.isTrue("description of " + member, member.getString("description").startsWith("Leak"));
            int priority = member.getInt("wopriority");
            Check.isTrue("priority of " + member, priority >= 2 && priority <= 4);
        }

        QueryWhere past = new QueryWhere().where("reportdate").lt(new Date(0));
        Check.equal("work orders reported before 1970", 0, t.wilson().resourceSet(WO).where(past).fetch().count());
    }

    private static void whereText(Target t) throws Exception {
        QueryWhere where = new QueryWhere().where("description").like("Pump").and("location").endsWith("0").and("wonum").gt("1300");
        ResourceSet set = t.wilson().resourceSet(WO).where(where).select("wonum", "description", "location").pageSize(1000).fetch();
        List<JsonObject> members = Members.of(set);
        int expected = t.plain.count(WO, "description=\"%Pump%\" and location=\"%0\" and wonum>\"1300\"");
        Check.isTrue("the three terms narrow the pumps", expected > 0 && expected < t.plain.count(WO, "description=\"%Pump%\""));
        Check.equal("members", expected, members.size());
        for (JsonObject member : members) {
            Check.isTrue("the terms hold for " + member, member.getString("description").toLowerCase().contains("pump")
                    && member.getString("location").endsWith("0") && member.getString("wonum").compareTo("1300") > 0);
        }
    }

    private static void whereChild(Target t) throws Exception {
        ResourceSet set = t.wilson().resourceSet(WO)
                .where(new QueryWhere().where("siteid").equalTo("NASHUA").and("woactivity.status").equalTo("COMP"))
                .select("wonum", "woactivity.taskid", "woactivity.status").pageSize(1000).fetch();
        List<JsonObject> members = Members.of(set);
        int expected = t.plain.count(WO, "siteid=\"NASHUA\" and woactivity{status=\"COMP\"}");
        Check.isTrue("some but not all work orders of NASHUA have a completed task", expected > 0 && expected < t.plain.count(WO, "siteid=\"NASHUA\""));
        Check.equal("members", expected, members.size());
        for (JsonObject member : members) {
            Check.isTrue(member.getString("wonum") + " has a completed task", Members.values(member.getJsonArray("woactivity"), "status").contains("COMP"));
        }
    }

    private static void selectRelated(Target t) throws Exception {
        ResourceSet set = t.wilson().resourceSet(WO)
                .where(new QueryWhere().where("wonum").in("1000", "1002", "1004"))
                .select("wonum", "assetnum", "$asset.description", "woactivity.taskid", "woactivity.description").fetch();
        List<JsonObject> members = Members.of(set);
        Check.equal("members", 3, members.size());
        for (JsonObject member : members) {
            Check.isTrue("only what was selected in " + member, !member.containsKey("status") && !member.containsKey("reportdate"));
            JsonObject asset = t.plain.object("/os/mxapiasset?oslc.select=description&oslc.where="
                    + Plain.encode("assetnum=\"" + member.getString("assetnum") + "\" and siteid=\"BEDFORD\"")).getJsonArray("member").getJsonObject(0);
            Check.equal("asset.description of " + member.getString("wonum"), asset.getString("description"), member.getJsonObject("asset").getString("description"));

            JsonObject tasks = t.plain.object(member.getString("href") + "/woactivity?oslc.select=taskid,description");
            Check.isTrue("the demo work order has tasks", !Members.of(tasks).isEmpty());
            Check.equal("task ids of " + member.getString("wonum"), Members.values(Members.of(tasks), "taskid"), Members.values(member.getJsonArray("woactivity"), "taskid"));
            Check.equal("task descriptions", Members.values(Members.of(tasks), "description"), Members.values(member.getJsonArray("woactivity"), "description"));
        }
    }

    private static void orderBy(Target t) throws Exception {
        ResourceSet set = t.wilson().resourceSet(WO).where("siteid=\"NASHUA\"").select("wonum", "wopriority").orderBy("wopriority", "wonum").pageSize(30).fetch();
        List<JsonObject> members = Members.of(set);
        JsonObject expected = t.plain.object("/os/" + WO + "?oslc.select=wonum&oslc.pageSize=30&oslc.orderBy=-wopriority,-wonum&oslc.where=" + Plain.encode("siteid=\"NASHUA\""));
        Check.equal("the page, ordered", Members.values(Members.of(expected), "wonum"), Members.values(members, "wonum"));
        for (int i = 1; i < members.size(); i++) {
            JsonObject before = members.get(i - 1);
            JsonObject row = members.get(i);
            boolean descending = before.getInt("wopriority") > row.getInt("wopriority")
                    || before.getInt("wopriority") == row.getInt("wopriority") && before.getString("wonum").compareTo(row.getString("wonum")) > 0;
            Check.isTrue("descending at " + row, descending);
        }
    }

    private static void savedQuery(Target t) throws Exception {
        ResourceSet set = t.wilson().resourceSet(WO).savedQuery(new SavedQuery().name("OPENWO")).select("wonum", "status").pageSize(1000).fetch();
        List<JsonObject> members = Members.of(set);
        Check.equal("members", t.plain.count(WO, "status in [\"WAPPR\",\"APPR\",\"WSCH\",\"WMATL\",\"INPRG\"]"), members.size());
        for (JsonObject member : members) {
            Check.isTrue("open: " + member, Set.of("WAPPR", "APPR", "WSCH", "WMATL", "INPRG").contains(member.getString("status")));
        }
        Check.equal("totalCount", members.size(), set.totalCount());
    }

    private static void savedQueryParams(Target t) throws Exception {
        ResourceSet byAsset = t.wilson().resourceSet(WO).savedQuery("WOBYASSET", Map.of("asset", "11208")).select("wonum", "assetnum").fetch();
        List<JsonObject> members = Members.of(byAsset);
        Check.equal("work orders of asset 11208", t.plain.count(WO, "assetnum=\"11208\""), members.size());
        Check.isTrue("the asset has work orders", !members.isEmpty());
        Check.equal("their asset", Set.of("11208"), new HashSet<>(Members.values(members, "assetnum")));

        ResourceSet operating = t.wilson().resourceSet("mxapiasset").savedQuery(new SavedQuery().name("ASSETSATSITE").addParam("site", "NASHUA"))
                .where(new QueryWhere().where("status").equalTo("OPERATING")).select("assetnum", "siteid", "status").pageSize(1000).fetch();
        List<JsonObject> assets = Members.of(operating);
        int expected = t.plain.count("mxapiasset", "siteid=\"NASHUA\" and status=\"OPERATING\"");
        Check.isTrue("both filters narrow the assets", expected > 0 && expected < t.plain.count("mxapiasset", "siteid=\"NASHUA\""));
        Check.equal("operating assets of NASHUA", expected, assets.size());
        Check.equal("their site and status", Set.of("NASHUA OPERATING"), new HashSet<>(pairs(assets)));
    }

    private static List<String> pairs(List<JsonObject> assets) {
        List<String> pairs = new ArrayList<>();
        for (JsonObject asset : assets) {
            pairs.add(asset.getString("siteid") + " " + asset.getString("status"));
        }
        return pairs;
    }

    private static void searchTerms(Target t) throws Exception {
        ResourceSet set = t.wilson().resourceSet(WO).searchAttributes("description").hasTerms("pump", "seal").select("wonum", "description").pageSize(1000).fetch();
        List<JsonObject> members = Members.of(set);
        int pumps = t.plain.count(WO, "description=\"%pump%\"");
        int seals = t.plain.count(WO, "description=\"%seal%\"");
        Check.isTrue("the demo has both words", pumps > 0 && seals > 0);
        Check.equal("members: either word", t.plain.count(WO, "description=\"%pump%\" or description=\"%seal%\""), members.size());
        for (JsonObject member : members) {
            String description = member.getString("description").toLowerCase();
            Check.isTrue("a term in " + description, description.contains("pump") || description.contains("seal"));
        }
    }

    private static void additionalParams(Target t) throws Exception {
        ResourceSet set = t.wilson().resourceSet("mxapiasset").fetchWithAddtionalParams(Map.of("oslc.pageSize", 50, "oslc.where", "assetnum=\"11001\"", "oslc.select", "assetnum,siteid"));
        List<JsonObject> members = Members.of(set);
        Check.equal("assets", List.of("11001"), Members.values(members, "assetnum"));
        Check.equal("its site", "NASHUA", members.get(0).getString("siteid"));
    }

    private static void memberProperties(Target t) throws Exception {
        String href = t.home + "/os/" + WO + "/_QkVERk9SRC8xMDAw";
        // fetchMember keeps the answer but marks the resource unloaded (toJSON would read it again, whole):
        // setLoaded(true) is the client's way to use what came, as IBM's own tests do.
        Resource member = t.wilson().resource(href, "wonum", "status");
        member.setLoaded(true);
        JsonObject fetched = member.toJSON();
        JsonObject plain = t.plain.object(href + "?oslc.select=wonum,status");
        Check.equal("wonum", "1000", fetched.getString("wonum"));
        Check.equal("status", plain.getString("status"), fetched.getString("status"));
        Check.isTrue("only those properties: " + fetched, !fetched.containsKey("description"));

        Resource loaded = new Resource(href, t.wilson()).load("description", "woactivity{taskid}");
        Check.equal("description", t.plain.object(href + "?oslc.select=description").getString("description"), loaded.toJSON().getString("description"));
        Check.equal("task ids", Members.values(Members.of(t.plain.object(href + "/woactivity?oslc.select=taskid")), "taskid"), Members.values(loaded.toJSON().getJsonArray("woactivity"), "taskid"));
        Resource withParams = new Resource(href, t.wilson()).loadWithAdditionalParams(Map.of("oslc.properties", "siteid"));
        Check.equal("siteid", "BEDFORD", withParams.toJSON().getString("siteid"));
        Check.isTrue("only siteid: " + withParams.toJSON(), !withParams.toJSON().containsKey("wonum"));
    }

    // IBM's own example: member(i) until null, each loaded by its href (the whole record) and reloaded.
    private static void members(Target t) throws Exception {
        ResourceSet set = t.wilson().resourceSet(WO).where("status=\"CAN\" and siteid=\"NASHUA\"").select("wonum").pageSize(5).fetch();
        int i = 0;
        for (Resource member = set.member(i); member != null; member = set.member(++i)) {
            JsonObject record = member.reload().toJSON();
            Check.equal("the record of " + member.getURI(), t.plain.object(member.getURI()).getString("description"), record.getString("description"));
            Check.equal("its status", "CAN", record.getString("status"));
        }
        Check.equal("members walked", 5, i);
        Check.equal("count", 5, set.count());
    }
}
