import java.lang.reflect.Field;
import java.util.List;

import com.ibm.maximo.oslc.MaximoConnector;
import com.ibm.maximo.oslc.OslcException;

// disconnect() sends GET {home}/logout with the session cookie. Whether the server really forgot the session is
// seen by sending that cookie again by hand: the client keeps it in a private field, read here by reflection
// (reading it changes nothing in the client).
final class SessionSteps {

    private SessionSteps() {
    }

    static List<Step> steps() {
        return List.of(
                new Step("disconnect ends the session on /maximo/oslc", (t) -> disconnect(t, "oslc")),
                new Step("disconnect ends the session on /maximo/api", (t) -> disconnect(t, "api")));
    }

    @SuppressWarnings("unchecked")
    private static String cookie(MaximoConnector mc) throws Exception {
        Field field = MaximoConnector.class.getDeclaredField("cookies");
        field.setAccessible(true);
        List<String> cookies = (List<String>) field.get(mc);
        Check.isTrue("one session cookie: " + cookies, cookies != null && cookies.size() == 1);
        return cookies.get(0).split(";")[0];
    }

    private static void disconnect(Target t, String api) throws Exception {
        MaximoConnector mc = t.connector("maxauth", api, "wilson", "wilson");
        mc.connect();
        String cookie = cookie(mc);
        String whoami = mc.getCurrentURI() + "/whoami";
        Check.equal("whoami with the session cookie alone", 200, t.plain.status(whoami, cookie));

        mc.disconnect();
        Check.equal("status of the logout", 200, mc.getLastResponseCode());
        Check.isTrue("the connector is no longer valid", !mc.isValid());
        Check.equal("whoami with the ended session's cookie", 401, t.plain.status(whoami, cookie));
        OslcException err = Check.refused("a request after disconnect", () -> mc.get(whoami));
        Check.contains("the client's refusal", err.getMessage(), "not valid");

        mc.connect();
        Check.equal("connected again", "WILSON", mc.get(whoami).getString("userid"));
        Check.differ("a new session", cookie, cookie(mc));
        mc.disconnect();
    }
}
