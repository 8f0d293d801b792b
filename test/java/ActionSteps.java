import java.util.List;

import javax.json.Json;
import javax.json.JsonObject;

import com.ibm.maximo.oslc.OslcException;
import com.ibm.maximo.oslc.Resource;

// Record actions through Resource.invokeAction, the Java client's one action API: POST {href}?&action=NAME with
// x-method-override: PATCH. Without properties the server answers 204 (the client answers null and reloads the
// record); with properties (the three-argument form) the record after the action, as they name it.
final class ActionSteps {

    private static final String WO = "mxapiwodetail";

    private ActionSteps() {
    }

    static List<Step> steps() {
        return List.of(
                new Step("invokeAction wsmethod:changeStatus without properties, then the record reloads", ActionSteps::withoutProperties),
                new Step("invokeAction wsmethod:changeStatus with properties answers the record", ActionSteps::withProperties),
                new Step("invokeAction of an unknown action is refused naming it", ActionSteps::unknown));
    }

    private static Resource newWorkOrder(Target t, String description) throws Exception {
        return t.wilson().resourceSet(WO).create(WriteSteps.workOrder(description).build());
    }

    // The statuses of the record's history, and the memo of the row of one status.
    private static List<JsonObject> history(Target t, Resource wo) throws Exception {
        return Members.of(t.plain.object(wo.getURI() + "/wostatus?oslc.select=status,memo"));
    }

    private static String memoOf(List<JsonObject> rows, String status) {
        return rows.stream().filter((row) -> status.equals(row.getString("status"))).map((row) -> row.getString("memo", "")).findFirst().orElse("none");
    }

    private static void withoutProperties(Target t) throws Exception {
        Resource wo = newWorkOrder(t, "Java action without properties");
        try {
            Resource answered = wo.invokeAction("wsmethod:changeStatus", Json.createObjectBuilder().add("status", "APPR").add("memo", "approved by invokeAction").build());
            Check.isTrue("invokeAction answers the resource", answered == wo);
            Check.equal("the reloaded record", "APPR", wo.toJSON().getString("status"));
            JsonObject back = t.plain.object(wo.getURI() + "?oslc.select=status,statusdate");
            Check.equal("status stored", "APPR", back.getString("status"));
            Check.isTrue("statusdate set", back.containsKey("statusdate"));
            List<JsonObject> rows = history(t, wo);
            Check.equal("history", List.of("APPR", "WAPPR"), Members.values(rows, "status").stream().sorted().toList());
            Check.equal("the memo of the change", "approved by invokeAction", memoOf(rows, "APPR"));
        }
        finally {
            wo.delete();
        }
    }

    private static void withProperties(Target t) throws Exception {
        Resource wo = newWorkOrder(t, "Java action with properties");
        try {
            wo.invokeAction("wsmethod:changeStatus", Json.createObjectBuilder().add("status", "INPRG").add("memo", "started").build(), "wonum,status,statusdate");
            // What the server answered, not a reload (toJSON loads a resource not marked loaded).
            wo.setLoaded(true);
            JsonObject answer = wo.toJSON();
            Check.equal("status answered", "INPRG", answer.getString("status"));
            Check.isTrue("statusdate answered", answer.containsKey("statusdate"));
            Check.isTrue("not asked for: " + answer, !answer.containsKey("description"));
            Check.equal("status stored", "INPRG", t.plain.object(wo.getURI() + "?oslc.select=status").getString("status"));
            List<JsonObject> rows = history(t, wo);
            Check.equal("history", List.of("INPRG", "WAPPR"), Members.values(rows, "status").stream().sorted().toList());
            Check.equal("the memo of the change", "started", memoOf(rows, "INPRG"));
        }
        finally {
            wo.delete();
        }
    }

    private static void unknown(Target t) throws Exception {
        Resource wo = newWorkOrder(t, "Java unknown action");
        try {
            OslcException err = Check.refused("an action the structure does not have", () -> wo.invokeAction("wsmethod:noSuchMethod", Json.createObjectBuilder().add("status", "APPR").build()));
            Check.contains("the error names it", err.getMessage(), "wsmethod:noSuchMethod");
            Check.equal("status unchanged", "WAPPR", t.plain.object(wo.getURI() + "?oslc.select=status").getString("status"));
            Check.equal("no history row added", 1, history(t, wo).size());
        }
        finally {
            wo.delete();
        }
    }
}
