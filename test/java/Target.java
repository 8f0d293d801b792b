import com.ibm.maximo.oslc.MaximoConnector;
import com.ibm.maximo.oslc.Options;

// One Osprey server under test: its database label, where it listens, and WILSON's connection, opened once with
// the client's maxauth login and shared by the steps that are not about logging in.
final class Target {

    static final String HOST = "127.0.0.1";

    final String label;
    final int port;
    final String home;
    final Plain plain;
    private MaximoConnector wilson;

    Target(String label, int port) {
        this.label = label;
        this.port = port;
        this.home = "http://" + HOST + ":" + port + "/maximo/oslc";
        this.plain = new Plain(home);
    }

    // A connector as IBM's examples make one: lean JSON, on the OSLC home unless apiContext says "api".
    MaximoConnector connector(String auth, String apiContext, String user, String password) {
        return new MaximoConnector(new Options().user(user).password(password).lean(true).auth(auth).host(HOST).port(port).apiContext(apiContext));
    }

    MaximoConnector wilson() throws Exception {
        if (wilson == null || !wilson.isValid()) {
            MaximoConnector mc = connector(Options.AUTH_MAXAUTH, "oslc", "wilson", "wilson");
            mc.connect();
            wilson = mc;
        }
        return wilson;
    }
}
