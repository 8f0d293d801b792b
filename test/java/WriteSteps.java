import java.util.List;
import java.util.Map;

import javax.json.Json;
import javax.json.JsonArrayBuilder;
import javax.json.JsonObject;
import javax.json.JsonObjectBuilder;

import com.ibm.maximo.oslc.MaximoConnector;
import com.ibm.maximo.oslc.OslcException;
import com.ibm.maximo.oslc.Resource;
import com.ibm.maximo.oslc.ResourceSet;

// Create, update, merge, sync, mergeSync and delete through the client, with and without properties; every write
// is read back with a plain request. The client sends only the last of several properties arguments (each
// replaces the Properties header), so properties are given as one comma-separated list.
final class WriteSteps {

    private static final String WO = "mxapiwodetail";

    private WriteSteps() {
    }

    static List<Step> steps() {
        return List.of(
                new Step("create without properties", WriteSteps::create),
                new Step("create with properties", WriteSteps::createProperties),
                new Step("update without properties", WriteSteps::update),
                new Step("update with properties replaces a child collection", WriteSteps::updateProperties),
                new Step("update of the status records its history", WriteSteps::status),
                new Step("merge with and without properties keeps the children", WriteSteps::merge),
                new Step("sync with properties creates, then updates", WriteSteps::sync),
                new Step("sync without properties creates, then updates", WriteSteps::syncBare),
                new Step("mergeSync keeps the children", WriteSteps::mergeSync),
                new Step("delete", WriteSteps::delete),
                new Step("refused writes throw Maximo's error", WriteSteps::refused));
    }

    static JsonObjectBuilder workOrder(String description) {
        return Json.createObjectBuilder().add("siteid", "BEDFORD").add("description", description);
    }

    static JsonArrayBuilder tasks(int... ids) {
        JsonArrayBuilder tasks = Json.createArrayBuilder();
        for (int id : ids) {
            tasks.add(Json.createObjectBuilder().add("taskid", id).add("description", "Task " + id));
        }
        return tasks;
    }

    // The task ids of a work order, read by hand.
    static List<String> taskIds(Target t, String href) throws Exception {
        return Members.values(Members.of(t.plain.object(href + "/woactivity?oslc.select=taskid&oslc.orderBy=%2Btaskid")), "taskid");
    }

    private static void create(Target t) throws Exception {
        ResourceSet set = t.wilson().resourceSet(WO);
        Resource created = set.create(workOrder("Java create").add("worktype", "CM").add("wopriority", 2).build());
        String href = created.getURI();
        try {
            Check.isTrue("the Location is a work order's href: " + href, href != null && href.startsWith(t.home + "/os/" + WO + "/_"));
            JsonObject back = t.plain.object(href + "?oslc.select=wonum,description,worktype,wopriority,status");
            Check.equal("description", "Java create", back.getString("description"));
            Check.equal("worktype", "CM", back.getString("worktype"));
            Check.equal("wopriority", 2, back.getInt("wopriority"));
            Check.equal("status (the default)", "WAPPR", back.getString("status"));
            Check.equal("the client reads it back", back.getString("wonum"), created.toJSON().getString("wonum"));
        }
        finally {
            created.delete();
        }
    }

    private static void createProperties(Target t) throws Exception {
        ResourceSet set = t.wilson().resourceSet(WO);
        Resource created = set.create(workOrder("Java create with properties").add("woactivity", tasks(10, 20)).build(), "wonum,description,status,woactivity{taskid}");
        created.setLoaded(true);
        JsonObject answer = created.toJSON();
        try {
            Check.equal("description", "Java create with properties", answer.getString("description"));
            Check.equal("status", "WAPPR", answer.getString("status"));
            Check.equal("tasks", List.of("10", "20"), Members.values(answer.getJsonArray("woactivity"), "taskid"));
            Check.isTrue("not asked for: " + answer, !answer.containsKey("reportdate"));
            JsonObject back = t.plain.object(answer.getString("href") + "?oslc.select=wonum");
            Check.equal("wonum", back.getString("wonum"), answer.getString("wonum"));
            Check.equal("tasks stored", List.of("10", "20"), taskIds(t, answer.getString("href")));

            JsonObject direct = t.wilson().create(set.getOsURI(), workOrder("Java create, the connector's").build(), "wonum");
            Check.isTrue("a wonum was generated: " + direct, !direct.getString("wonum").isEmpty());
            t.wilson().delete(direct.getString("href"));

            // IBM's example sends Properties as an additional header; the client then reads only the Location.
            Resource headed = set.create(workOrder("Java create with a Properties header").build(), Map.of("Properties", "wonum"));
            Check.equal("stored", "Java create with a Properties header", t.plain.object(headed.getURI() + "?oslc.select=description").getString("description"));
            headed.delete();
        }
        finally {
            created.delete();
        }
    }

    private static void update(Target t) throws Exception {
        Resource created = t.wilson().resourceSet(WO).create(workOrder("Java before update").add("wopriority", 3).build());
        try {
            created.update(Json.createObjectBuilder().add("description", "Java after update").add("wopriority", 1).build());
            Check.equal("the client reloads it", "Java after update", created.toJSON().getString("description"));
            JsonObject back = t.plain.object(created.getURI() + "?oslc.select=description,wopriority");
            Check.equal("description", "Java after update", back.getString("description"));
            Check.equal("wopriority", 1, back.getInt("wopriority"));
        }
        finally {
            created.delete();
        }
    }

    private static void updateProperties(Target t) throws Exception {
        Resource created = t.wilson().resourceSet(WO).create(workOrder("Java update with properties").add("woactivity", tasks(10, 20)).build());
        try {
            created.update(Json.createObjectBuilder().add("description", "Java updated").add("woactivity", tasks(30)).build(), "description,woactivity{taskid}");
            JsonObject answer = created.toJSON();
            Check.equal("description answered", "Java updated", answer.getString("description"));
            Check.equal("tasks answered: the named collection is replaced", List.of("30"), Members.values(answer.getJsonArray("woactivity"), "taskid"));
            Check.equal("tasks stored", List.of("30"), taskIds(t, created.getURI()));
        }
        finally {
            created.delete();
        }
    }

    private static void status(Target t) throws Exception {
        Resource created = t.wilson().resourceSet(WO).create(workOrder("Java status change").build());
        try {
            created.update(Json.createObjectBuilder().add("status", "APPR").add("memo", "approved by the Java client").build(), "status,statusdate");
            Check.equal("status answered", "APPR", created.toJSON().getString("status"));
            Check.isTrue("statusdate set", created.toJSON().containsKey("statusdate"));
            List<JsonObject> history = Members.of(t.plain.object(created.getURI() + "/wostatus?oslc.select=status,memo"));
            Check.equal("the last history row", "APPR approved by the Java client", last(history).getString("status") + " " + last(history).getString("memo"));

            OslcException err = Check.refused("a transition the structure forbids", () -> created.update(Json.createObjectBuilder().add("status", "CLOSE").build()));
            Check.contains("the error", err.getMessage(), "BMXAA");
            Check.equal("status unchanged", "APPR", t.plain.object(created.getURI() + "?oslc.select=status").getString("status"));
        }
        finally {
            created.delete();
        }
    }

    private static JsonObject last(List<JsonObject> rows) {
        return rows.get(rows.size() - 1);
    }

    private static void merge(Target t) throws Exception {
        Resource created = t.wilson().resourceSet(WO).create(workOrder("Java merge").add("woactivity", tasks(10, 20)).build());
        try {
            created.merge(Json.createObjectBuilder().add("woactivity", tasks(30)).build());
            Check.equal("tasks after a merge without properties", List.of("10", "20", "30"), taskIds(t, created.getURI()));
            Check.equal("the client reloads it", "Java merge", created.toJSON().getString("description"));

            created.merge(Json.createObjectBuilder().add("description", "Java merged").add("woactivity", tasks(40)).build(), "description,woactivity{taskid}");
            Check.equal("description answered", "Java merged", created.toJSON().getString("description"));
            Check.equal("tasks answered", List.of("10", "20", "30", "40"), Members.values(created.toJSON().getJsonArray("woactivity"), "taskid"));
            Check.equal("tasks stored", List.of("10", "20", "30", "40"), taskIds(t, created.getURI()));
        }
        finally {
            created.delete();
        }
    }

    private static String wonum(Target t, String what) {
        return ("JAVA-" + what + "-" + t.label).toUpperCase();
    }

    private static void sync(Target t) throws Exception {
        ResourceSet set = t.wilson().resourceSet(WO);
        String wonum = wonum(t, "SYNC");
        Resource created = set.sync(workOrder("Java sync create").add("wonum", wonum).build(), "wonum,description");
        created.setLoaded(true);
        try {
            Check.equal("created: description answered", "Java sync create", created.toJSON().getString("description"));
            Resource updated = set.sync(workOrder("Java sync update").add("wonum", wonum).build(), "wonum,description");
            updated.setLoaded(true);
            Check.equal("updated: description answered", "Java sync update", updated.toJSON().getString("description"));
            Check.equal("the same record", created.getURI(), updated.getURI());
            Check.equal("one record with that wonum", 1, t.plain.count(WO, "wonum=\"" + wonum + "\""));
            Check.equal("description stored", "Java sync update", t.plain.object(created.getURI() + "?oslc.select=description").getString("description"));
        }
        finally {
            created.delete();
        }
    }

    private static void syncBare(Target t) throws Exception {
        ResourceSet set = t.wilson().resourceSet(WO);
        set.fetch();
        String wonum = wonum(t, "BARESYNC");
        MaximoConnector mc = t.wilson();
        JsonObject created = mc.sync(set.getOsURI(), workOrder("Java sync create").add("wonum", wonum).build());
        String href = created.getString("rdf:resource");
        try {
            Check.isTrue("the Location of the new record: " + created, href.startsWith(t.home + "/os/" + WO + "/_"));
            Check.equal("201 on create", 201, mc.getLastResponseCode());
            Check.isTrue("an update answers nothing", mc.sync(set.getOsURI(), workOrder("Java sync update").add("wonum", wonum).build()) == null);
            Check.equal("204 on update", 204, mc.getLastResponseCode());
            Check.equal("description stored", "Java sync update", t.plain.object(href + "?oslc.select=description").getString("description"));
        }
        finally {
            mc.delete(href);
        }
    }

    private static void mergeSync(Target t) throws Exception {
        ResourceSet set = t.wilson().resourceSet(WO);
        String wonum = wonum(t, "MERGESYNC");
        Resource created = set.mergeSync(workOrder("Java mergeSync create").add("wonum", wonum).add("woactivity", tasks(10, 20)).build(), "wonum,woactivity{taskid}");
        created.setLoaded(true);
        try {
            Check.equal("created with its tasks", List.of("10", "20"), Members.values(created.toJSON().getJsonArray("woactivity"), "taskid"));
            Resource merged = set.mergeSync(workOrder("Java mergeSync update").add("wonum", wonum).add("woactivity", tasks(30)).build(), "description,woactivity{taskid}");
            merged.setLoaded(true);
            Check.equal("description answered", "Java mergeSync update", merged.toJSON().getString("description"));
            Check.equal("tasks kept and added", List.of("10", "20", "30"), taskIds(t, created.getURI()));
            Check.isTrue("without properties an update answers nothing", t.wilson().mergeSync(set.getOsURI(), workOrder("Java mergeSync again").add("wonum", wonum).build()) == null);
            Check.equal("tasks kept", List.of("10", "20", "30"), taskIds(t, created.getURI()));
        }
        finally {
            created.delete();
        }
    }

    private static void delete(Target t) throws Exception {
        Resource created = t.wilson().resourceSet(WO).create(workOrder("Java delete").add("woactivity", tasks(10)).build());
        String wonum = t.plain.object(created.getURI() + "?oslc.select=wonum").getString("wonum");
        created.delete();
        Check.equal("status of a GET of it", 404, t.plain.status(created.getURI(), null));
        Check.equal("records with its wonum", 0, t.plain.count(WO, "wonum=\"" + wonum + "\" and siteid=\"BEDFORD\""));
        OslcException err = Check.refused("reading it with the client", () -> t.wilson().resource(created.getURI()));
        Check.contains("the error", err.getMessage(), "BMXAA8727E");
    }

    private static void refused(Target t) throws Exception {
        ResourceSet set = t.wilson().resourceSet(WO);
        int before = t.plain.count(WO, "description=\"Java refused\"");
        OslcException unknown = Check.refused("an unknown attribute", () -> set.create(workOrder("Java refused").add("nosuchattribute", 1).build()));
        Check.contains("the error", unknown.getMessage(), "nosuchattribute");
        Check.equal("nothing written", before, t.plain.count(WO, "description=\"Java refused\""));

        OslcException forbidden = Check.refused("WILSON may not create assets", () -> t.wilson().resourceSet("mxapiasset").create(Json.createObjectBuilder().add("assetnum", "JAVA1").add("siteid", "BEDFORD").build()));
        Check.contains("the error", forbidden.getMessage(), "BMXAA9301E");
    }
}
