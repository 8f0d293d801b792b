import java.io.StringReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

import javax.json.Json;
import javax.json.JsonArray;
import javax.json.JsonObject;
import javax.json.JsonStructure;

// Plain HTTP requests with WILSON's maxauth, written by hand: what the client's answers are compared with, so a
// step does not check the client only against itself.
final class Plain {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String WILSON = Base64.getEncoder().encodeToString("wilson:wilson".getBytes(StandardCharsets.UTF_8));

    private final String home;

    Plain(String home) {
        this.home = home;
    }

    static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    // GET of a path below the OSLC home (or of an absolute URL); a status other than 200 fails the step.
    JsonStructure get(String pathOrUrl) throws Exception {
        HttpResponse<String> res = send(pathOrUrl, "maxauth", WILSON);
        Check.equal("status of GET " + pathOrUrl + " (" + res.body() + ")", 200, res.statusCode());
        return Json.createReader(new StringReader(res.body())).read();
    }

    JsonObject object(String pathOrUrl) throws Exception {
        return (JsonObject) get(pathOrUrl);
    }

    JsonArray array(String pathOrUrl) throws Exception {
        return (JsonArray) get(pathOrUrl);
    }

    // The number of records a plain query of this where clause finds.
    int count(String os, String where) throws Exception {
        return object("/os/" + os + "?count=1&oslc.where=" + encode(where)).getInt("totalCount");
    }

    // The status of a GET with WILSON's credentials, or with only this cookie when one is given.
    int status(String pathOrUrl, String cookie) throws Exception {
        return cookie == null ? send(pathOrUrl, "maxauth", WILSON).statusCode() : send(pathOrUrl, "cookie", cookie).statusCode();
    }

    private HttpResponse<String> send(String pathOrUrl, String header, String value) throws Exception {
        String url = pathOrUrl.startsWith("http") ? pathOrUrl : home + pathOrUrl;
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).header(header, value).header("accept", "application/json").GET().build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
