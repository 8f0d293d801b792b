import java.util.ArrayList;
import java.util.List;

import javax.json.JsonArray;
import javax.json.JsonObject;
import javax.json.JsonValue;

import com.ibm.maximo.oslc.ResourceSet;

// Reading the members of a page: the set as the client fetched it, or a page fetched by hand.
final class Members {

    private Members() {
    }

    static List<JsonObject> of(ResourceSet set) throws Exception {
        return of(set.toJSON());
    }

    static List<JsonObject> of(JsonObject page) {
        List<JsonObject> members = new ArrayList<>();
        for (JsonValue member : page.getJsonArray("member")) {
            members.add(member.asJsonObject());
        }
        return members;
    }

    // One attribute of every member, as text (numbers as JSON writes them); absent values as null.
    static List<String> values(List<JsonObject> members, String attribute) {
        List<String> values = new ArrayList<>();
        for (JsonObject member : members) {
            JsonValue value = member.get(attribute);
            values.add(value == null ? null : value.getValueType() == JsonValue.ValueType.STRING ? member.getString(attribute) : value.toString());
        }
        return values;
    }

    static List<String> values(JsonArray rows, String attribute) {
        List<JsonObject> members = new ArrayList<>();
        for (JsonValue row : rows) {
            members.add(row.asJsonObject());
        }
        return values(members, attribute);
    }
}
