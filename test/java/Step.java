// A named check run with the client against one server.
final class Step {

    interface Body {
        void run(Target target) throws Exception;
    }

    final String name;
    final Body body;

    Step(String name, Body body) {
        this.name = name;
        this.body = body;
    }
}
