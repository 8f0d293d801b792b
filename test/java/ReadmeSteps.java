import java.util.List;

// The README's Java example (section "Using Osprey from code"), compiled from the README by
// test/helpers/java-client.ts beside these steps and run as a reader runs it, against this server's port: it queries,
// creates a work order and deletes it again, so afterwards there is none more than before.
final class ReadmeSteps {

    private ReadmeSteps() {
    }

    static List<Step> steps() {
        return List.of(new Step("the README's WorkOrders example runs and leaves nothing behind", ReadmeSteps::workOrders));
    }

    private static void workOrders(Target t) throws Exception {
        String where = "description=\"Pump vibration\"";
        int before = t.plain.count("mxapiwodetail", where);
        WorkOrders.main(new String[] { String.valueOf(t.port) });
        Check.equal("work orders it left", before, t.plain.count("mxapiwodetail", where));
    }
}
