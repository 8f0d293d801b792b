import java.util.ArrayList;
import java.util.List;

import javax.json.Json;
import javax.json.JsonObject;

import com.ibm.maximo.oslc.MaximoConnector;
import com.ibm.maximo.oslc.Options;
import com.ibm.maximo.oslc.OslcException;
import com.ibm.maximo.oslc.Resource;
import com.ibm.maximo.oslc.ResourceSet;

// connect() in each of the client's modes on both homes. The client keeps the Set-Cookie of connect's answer and
// sends only that cookie afterwards, so reading whoami proves the session works.
final class ConnectSteps {

    private ConnectSteps() {
    }

    static List<Step> steps() {
        List<Step> steps = new ArrayList<>();
        for (String api : new String[] { "oslc", "api" }) {
            steps.add(new Step("connect with maxauth on /maximo/" + api, (t) -> connect(t, "maxauth", api, "wilson", "wilson")));
            steps.add(new Step("connect with basic on /maximo/" + api, (t) -> connect(t, "basic", api, "wilson", "wilson")));
            steps.add(new Step("connect with form on /maximo/" + api, (t) -> connect(t, "form", api, "maxadmin", "maxadmin")));
        }
        steps.add(new Step("a connector without lean(true) queries and creates", ConnectSteps::notLean));
        steps.add(new Step("connect with a wrong password is refused (maxauth)", (t) -> refused(t, "maxauth")));
        steps.add(new Step("connect with a wrong password is refused (form)", (t) -> refused(t, "form")));
        return steps;
    }

    private static void connect(Target t, String auth, String api, String user, String password) throws Exception {
        MaximoConnector mc = t.connector(auth, api, user, password);
        mc.connect();
        Check.isTrue("connected", mc.isValid());
        Check.isTrue("status of the login " + mc.getLastResponseCode(), mc.getLastResponseCode() >= 200 && mc.getLastResponseCode() < 400);
        String home = "http://" + Target.HOST + ":" + t.port + "/maximo/" + api;
        Check.equal("the client's API base", home, mc.getCurrentURI());

        JsonObject me = mc.get(home + "/whoami");
        Check.equal("whoami userid", user.toUpperCase(), me.getString("userid"));
        Check.equal("whoami href (built on x-public-uri)", home + "/whoami", me.getString("href"));
        mc.disconnect();
    }

    // IBM's second example connects without lean(true): connect sends no lean parameter, and create answers the
    // new record as {"href"} instead of {"rdf:resource"}.
    private static void notLean(Target t) throws Exception {
        MaximoConnector mc = new MaximoConnector(new Options().user("wilson").password("wilson").lean(false).auth(Options.AUTH_MAXAUTH).host(Target.HOST).port(t.port));
        mc.connect();
        ResourceSet set = mc.resourceSet("mxapiwodetail").where("wonum=\"1000\"").select("wonum", "siteid").fetch();
        Check.equal("the page", List.of("1000"), Members.values(Members.of(set), "wonum"));

        Resource created = set.create(Json.createObjectBuilder().add("siteid", "BEDFORD").add("description", "Java, not lean").build());
        try {
            Check.isTrue("the new record's href: " + created.getURI(), created.getURI() != null && created.getURI().startsWith(t.home + "/os/mxapiwodetail/_"));
            Check.equal("stored", "Java, not lean", t.plain.object(created.getURI() + "?oslc.select=description").getString("description"));
        }
        finally {
            created.delete();
            mc.disconnect();
        }
    }

    private static void refused(Target t, String auth) throws Exception {
        MaximoConnector mc = t.connector(auth, "oslc", "wilson", "not-his-password");
        OslcException err = Check.refused("connect", mc::connect);
        Check.contains("the error", err.getMessage(), "BMXAA7901E");
        Check.equal("status", 401, mc.getLastResponseCode());
        Check.isTrue("not connected", !mc.isValid());
    }
}
