import java.util.ArrayList;
import java.util.List;

import javax.json.Json;
import javax.json.JsonObjectBuilder;

// IBM's Java REST client, unchanged, against running Osprey servers: `java ClientSteps sqlite=PORT postgresql=PORT`
// runs every step against each server (one thread per server, the steps of a server in order) and prints one JSON
// line per step: {"database", "step", "ok", "ms", "detail"}. test/e2e/client-java.test.ts reads them.
public final class ClientSteps {

    private ClientSteps() {
    }

    static List<Step> steps() {
        List<Step> steps = new ArrayList<>();
        steps.addAll(ConnectSteps.steps());
        steps.addAll(QuerySteps.steps());
        steps.addAll(PagingSteps.steps());
        steps.addAll(GroupBySteps.steps());
        steps.addAll(WriteSteps.steps());
        steps.addAll(BulkSteps.steps());
        steps.addAll(ActionSteps.steps());
        steps.addAll(AttachmentSteps.steps());
        steps.addAll(LinkSteps.steps());
        steps.addAll(SessionSteps.steps());
        steps.addAll(ReadmeSteps.steps());
        return steps;
    }

    public static void main(String[] args) throws Exception {
        List<Thread> threads = new ArrayList<>();
        for (String arg : args) {
            String[] parts = arg.split("=", 2);
            Target target = new Target(parts[0], Integer.parseInt(parts[1]));
            Thread thread = new Thread(() -> steps().forEach((step) -> run(target, step)));
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
    }

    private static void run(Target target, Step step) {
        long start = System.nanoTime();
        JsonObjectBuilder line = Json.createObjectBuilder().add("database", target.label).add("step", step.name);
        try {
            step.body.run(target);
            line.add("ok", true).add("detail", "");
        }
        catch (Throwable err) {
            line.add("ok", false).add("detail", describe(err));
        }
        line.add("ms", (System.nanoTime() - start) / 1_000_000);
        String text = line.build().toString();
        synchronized (System.out) {
            System.out.println(text);
            System.out.flush();
        }
    }

    // The failure and where in these steps it happened (the client's own frames say little about which check).
    private static String describe(Throwable err) {
        StringBuilder text = new StringBuilder(err.getClass().getSimpleName()).append(": ").append(err.getMessage());
        for (StackTraceElement frame : err.getStackTrace()) {
            if (!frame.getClassName().startsWith("com.ibm.") && !frame.getClassName().startsWith("java.") && frame.getFileName() != null) {
                text.append(" (").append(frame.getFileName()).append(':').append(frame.getLineNumber()).append(')');
                break;
            }
        }
        return text.toString();
    }
}
