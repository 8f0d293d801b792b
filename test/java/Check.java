import java.util.Objects;

import com.ibm.maximo.oslc.OslcException;

// The assertions of the steps. A failed one throws with what was expected and what came, which the step's
// JSON line carries to the lab test.
final class Check {

    private Check() {
    }

    static void isTrue(String what, boolean condition) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }

    static void equal(String what, Object expected, Object actual) {
        if (!Objects.equals(expected, actual)) {
            throw new AssertionError(what + ": expected " + expected + ", got " + actual);
        }
    }

    static void differ(String what, Object unexpected, Object actual) {
        if (Objects.equals(unexpected, actual)) {
            throw new AssertionError(what + ": expected anything but " + unexpected);
        }
    }

    static void contains(String what, String text, String part) {
        if (text == null || !text.contains(part)) {
            throw new AssertionError(what + ": expected " + text + " to contain " + part);
        }
    }

    interface Call {
        void run() throws Exception;
    }

    // The client reports a server's refusal as an OslcException whose message carries Maximo's text.
    static OslcException refused(String what, Call call) throws Exception {
        try {
            call.run();
        }
        catch (OslcException err) {
            return err;
        }
        throw new AssertionError(what + ": expected the client to throw an OslcException");
    }
}
