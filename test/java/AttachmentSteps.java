import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import javax.json.JsonObject;

import com.ibm.maximo.oslc.Attachment;
import com.ibm.maximo.oslc.AttachmentSet;
import com.ibm.maximo.oslc.MaximoConnector;
import com.ibm.maximo.oslc.Options;
import com.ibm.maximo.oslc.OslcException;
import com.ibm.maximo.oslc.Resource;

// Attachments (doclinks, issue 36) through the client's public API only: Resource.attachmentSet, AttachmentSet's
// create, load, thisPageSize, member and delete, Attachment's toDoc, toDocMeta and delete, and the connector's
// attachment and attachmentDocMeta. The client POSTs the raw bytes labelled application/json with slug,
// x-document-description and x-document-meta, reads Location for the new document's href, and reads a download's
// body whole whatever its type (ATTACH-WIRE.md §1). Header values go out as Latin-1, so a name beyond Latin-1 would
// reach the server as '?': the names here are Latin-1, which the client carries unchanged.
final class AttachmentSteps {

    private static final String WO = "mxapiwodetail";
    private static final String NAME = "Pumpe Größe ½ - Lager.bin";
    private static final String DESCRIPTION = "Lagerschaden, Welle geprüft";

    private AttachmentSteps() {
    }

    static List<Step> steps() {
        return List.of(
                new Step("attachments: attachmentSet of a loaded record, create, then load, thisPageSize and member(i)", AttachmentSteps::createAndList),
                new Step("attachments: toDoc answers every byte as uploaded (0x00 to 0xFF)", AttachmentSteps::content),
                new Step("attachments: toDocMeta names the title, description, urlType and identifier", AttachmentSteps::meta),
                new Step("attachments: mc.attachment(uri) and mc.attachmentDocMeta(uri) find a document by its href", AttachmentSteps::byHref),
                new Step("attachments: a document of several chunks (600 KB) comes back whole", AttachmentSteps::large),
                new Step("attachments: attachmentSet(null, null) of a record read without doclinks uses .../DOCLINKS", AttachmentSteps::upperCase),
                new Step("attachments: a connector without lean(true) creates and reads a document", AttachmentSteps::notLean),
                new Step("attachments: Attachment.delete and AttachmentSet.delete(i), then the list and a refused read", AttachmentSteps::delete));
    }

    // Every byte value, 0x00 and 0xFF at both ends, and a CR LF and a JSON-looking run in the middle: a server that
    // parsed, re-encoded or trimmed the body would change it.
    static byte[] binary() {
        byte[] all = new byte[256 + 8];
        for (int i = 0; i < 256; i++) {
            all[i + 4] = (byte) i;
        }
        all[0] = 0;
        all[1] = (byte) 0xFF;
        all[2] = '{';
        all[3] = '\r';
        all[260] = '\n';
        all[261] = '}';
        all[262] = (byte) 0xFF;
        all[263] = 0;
        return all;
    }

    private static Resource newWorkOrder(Target t, String description) throws Exception {
        return t.wilson().resourceSet(WO).create(WriteSteps.workOrder(description).build());
    }

    // The record as the client reads it whole (a GET of its href without properties): it carries doclinks {href}.
    private static AttachmentSet documentsOf(Target t, Resource wo) throws Exception {
        return t.wilson().resource(wo.getURI()).attachmentSet();
    }

    private static Attachment upload(AttachmentSet set, String name, String description, byte[] bytes) throws Exception {
        return set.create(new Attachment().name(name).description(description).meta("FILE", "Attachments").data(bytes));
    }

    private static String idOf(String href) {
        return href.substring(href.lastIndexOf('/') + 1);
    }

    private static String metaUri(String href) {
        return href.substring(0, href.lastIndexOf('/')) + "/meta/" + idOf(href);
    }

    private static List<String> hrefs(AttachmentSet set) throws Exception {
        List<String> hrefs = new ArrayList<>();
        for (int i = 0; i < set.thisPageSize(); i++) {
            hrefs.add(set.member(i).getURI());
        }
        return hrefs;
    }

    private static void createAndList(Target t) throws Exception {
        Resource wo = newWorkOrder(t, "Java attachments, create and list");
        try {
            AttachmentSet set = documentsOf(t, wo);
            Check.equal("the set's href", wo.getURI() + "/doclinks", set.getURI());
            Check.equal("a new record's documents", 0, set.load().thisPageSize());
            Check.isTrue("member(0) of none", set.member(0) == null);

            Attachment created = upload(set, NAME, DESCRIPTION, binary());
            String href = created.getURI();
            Check.isTrue("the Location is the document's absolute href: " + href, href != null && href.startsWith(wo.getURI() + "/doclinks/"));
            Check.isTrue("a document id past the client's replace bug: " + href, Long.parseLong(idOf(href)) > 1_000_000);

            // create reloads the set: it lists the new document.
            Check.equal("thisPageSize after create", 1, set.thisPageSize());
            Check.equal("member(0)", href, set.member(0).getURI());
            Check.isTrue("member(1) past the end", set.member(1) == null);
            Check.equal("member(id)", href, set.member(idOf(href)).getURI());

            // A name with % as it is (not percent-encoding): the client sends it unchanged.
            Attachment second = upload(set, "Verschleiß 50%.txt", "the second", "second\n".getBytes(StandardCharsets.US_ASCII));
            Check.equal("thisPageSize after a second create", 2, set.thisPageSize());
            Check.equal("both listed, in the order created", List.of(href, second.getURI()), hrefs(set));

            // A set made afresh reads the same list.
            AttachmentSet again = documentsOf(t, wo).load();
            Check.equal("a fresh set", List.of(href, second.getURI()), hrefs(again));
            JsonObject described = again.toJSON().getJsonArray("member").getJsonObject(0).getJsonObject("describedBy");
            Check.equal("describedBy title", NAME, described.getString("title"));
            Check.equal("describedBy identifier", idOf(href), described.getString("identifier"));
            Check.equal("the second's title", "Verschleiß 50%.txt", again.member(1).toDocMeta().getString("title"));
        }
        finally {
            wo.delete();
        }
    }

    private static void content(Target t) throws Exception {
        Resource wo = newWorkOrder(t, "Java attachments, content");
        try {
            AttachmentSet set = documentsOf(t, wo);
            byte[] bytes = binary();
            Attachment created = upload(set, NAME, DESCRIPTION, bytes);
            Check.isTrue("the created attachment's toDoc", Arrays.equals(bytes, created.toDoc()));
            Check.isTrue("member(0).toDoc", Arrays.equals(bytes, set.member(0).toDoc()));
            Check.isTrue("mc.getAttachmentData", Arrays.equals(bytes, t.wilson().getAttachmentData(created.getURI())));
            // Attachment.load reads once; reload reads again.
            Attachment member = set.member(0);
            member.load();
            Check.isTrue("reload", Arrays.equals(bytes, member.reload().toDoc()));
        }
        finally {
            wo.delete();
        }
    }

    private static void meta(Target t) throws Exception {
        Resource wo = newWorkOrder(t, "Java attachments, meta");
        try {
            AttachmentSet set = documentsOf(t, wo);
            byte[] bytes = binary();
            String href = upload(set, NAME, DESCRIPTION, bytes).getURI();
            Attachment member = set.member(0);
            JsonObject meta = member.toDocMeta();
            Check.equal("title", NAME, meta.getString("title"));
            Check.equal("description", DESCRIPTION, meta.getString("description"));
            Check.equal("urlType", "FILE", meta.getString("urlType"));
            Check.equal("identifier", idOf(href), meta.getString("identifier"));
            Check.equal("href", metaUri(href), meta.getString("href"));
            Check.equal("docType", "Attachments", meta.getString("docType"));
            Check.equal("attachmentSize", bytes.length, meta.getInt("attachmentSize"));
            // The client keeps what it read: the name, description and x-document-meta it would send again.
            Check.equal("getName", NAME, member.getName());
            Check.equal("getDescription", DESCRIPTION, member.getDescription());
            Check.equal("getMeta", "FILE/Attachments", member.getMeta());
            Check.equal("a plain GET of the meta", meta, t.plain.object(metaUri(href)));
            Check.equal("fetchDocMeta reads it again", meta, member.fetchDocMeta());
            Check.equal("toDocMetaBytes", meta.toString(), new String(member.toDocMetaBytes(), StandardCharsets.UTF_8));
        }
        finally {
            wo.delete();
        }
    }

    private static void byHref(Target t) throws Exception {
        Resource wo = newWorkOrder(t, "Java attachments, by href");
        try {
            byte[] bytes = binary();
            String href = upload(documentsOf(t, wo), NAME, DESCRIPTION, bytes).getURI();
            MaximoConnector mc = t.wilson();
            // fetchMember GETs the href with its id's text replaced by "meta" and the id appended.
            Attachment found = mc.attachment(href);
            Check.equal("its href (the meta's href, meta/ dropped)", href, found.getURI());
            Check.isTrue("its toDoc", Arrays.equals(bytes, found.toDoc()));
            Check.equal("its toDocMeta title", NAME, found.toDocMeta().getString("title"));
            JsonObject meta = mc.attachmentDocMeta(href);
            Check.equal("attachmentDocMeta title", NAME, meta.getString("title"));
            Check.equal("attachmentDocMeta description", DESCRIPTION, meta.getString("description"));
            Check.equal("attachmentDocMeta identifier", idOf(href), meta.getString("identifier"));
            Check.equal("attachmentDocMeta urlType", "FILE", meta.getString("urlType"));
        }
        finally {
            wo.delete();
        }
    }

    private static void large(Target t) throws Exception {
        Resource wo = newWorkOrder(t, "Java attachments, large");
        try {
            byte[] bytes = new byte[600 * 1024 + 7];
            new Random(36).nextBytes(bytes);
            AttachmentSet set = documentsOf(t, wo);
            Attachment created = upload(set, "vibration.dat", "a recording", bytes);
            Check.isTrue("toDoc of " + bytes.length + " bytes", Arrays.equals(bytes, created.toDoc()));
            Check.equal("attachmentSize", bytes.length, set.member(0).toDocMeta().getInt("attachmentSize"));
        }
        finally {
            wo.delete();
        }
    }

    // A record read with properties has no doclinks key: the client then builds href + "/DOCLINKS" itself.
    private static void upperCase(Target t) throws Exception {
        Resource wo = newWorkOrder(t, "Java attachments, DOCLINKS");
        try {
            Resource read = t.wilson().resource(wo.getURI(), "wonum", "description");
            read.setLoaded(true);
            Check.isTrue("read without doclinks: " + read.toJSON(), !read.toJSON().containsKey("doclinks"));
            AttachmentSet set = read.attachmentSet(null, null);
            Check.equal("the set's href", wo.getURI() + "/DOCLINKS", set.getURI());
            Check.equal("none yet", 0, set.load().thisPageSize());
            byte[] bytes = binary();
            Attachment created = upload(set, "upper.bin", "through DOCLINKS", bytes);
            Check.equal("listed through DOCLINKS", 1, set.thisPageSize());
            Check.isTrue("toDoc", Arrays.equals(bytes, set.member(0).toDoc()));
            // The meta URL puts meta after the DOCLINKS segment, whatever its case.
            Check.equal("toDocMeta title", "upper.bin", set.member(0).toDocMeta().getString("title"));
            Check.equal("the same document through doclinks", List.of(created.getURI()), hrefs(documentsOf(t, wo)));
            set.delete(0);
            Check.equal("deleted through DOCLINKS", 0, set.thisPageSize());
        }
        finally {
            wo.delete();
        }
    }

    // Without lean the client answers create as {"href"} rather than {"rdf:resource"}, and reads the meta's
    // dcterms: names only where the meta has rdf:about.
    private static void notLean(Target t) throws Exception {
        MaximoConnector mc = new MaximoConnector(new Options().user("wilson").password("wilson").lean(false).auth(Options.AUTH_MAXAUTH).host(Target.HOST).port(t.port));
        mc.connect();
        Resource wo = mc.resourceSet(WO).create(WriteSteps.workOrder("Java attachments, not lean").build());
        try {
            AttachmentSet set = mc.resource(wo.getURI()).attachmentSet();
            byte[] bytes = binary();
            Attachment created = upload(set, NAME, DESCRIPTION, bytes);
            Check.isTrue("the href: " + created.getURI(), created.getURI() != null && created.getURI().startsWith(wo.getURI() + "/doclinks/"));
            Check.isTrue("toDoc", Arrays.equals(bytes, set.member(0).toDoc()));
            Check.equal("toDocMeta title", NAME, set.member(0).toDocMeta().getString("title"));
        }
        finally {
            wo.delete();
            mc.disconnect();
        }
    }

    private static void delete(Target t) throws Exception {
        Resource wo = newWorkOrder(t, "Java attachments, delete");
        try {
            AttachmentSet set = documentsOf(t, wo);
            String first = upload(set, "first.txt", "one", "one".getBytes(StandardCharsets.US_ASCII)).getURI();
            String second = upload(set, "second.txt", "two", "two".getBytes(StandardCharsets.US_ASCII)).getURI();
            String third = upload(set, "third.txt", "three", "three".getBytes(StandardCharsets.US_ASCII)).getURI();
            Check.equal("three listed", List.of(first, second, third), hrefs(set));

            // Attachment.delete sends DELETE; the set is as it was until reloaded.
            set.member(1).delete();
            Check.equal("the set before reload", 3, set.thisPageSize());
            Check.equal("after Attachment.delete and reload", List.of(first, third), hrefs(set.reload()));

            // AttachmentSet.delete(i) deletes and reloads.
            set.delete(0);
            Check.equal("after AttachmentSet.delete(0)", List.of(third), hrefs(set));
            Check.equal("a fresh set agrees", List.of(third), hrefs(documentsOf(t, wo).load()));

            OslcException gone = Check.refused("toDoc of a deleted document", () -> t.wilson().getAttachmentData(first));
            Check.contains("Maximo's error names the document", gone.getMessage(), idOf(first));
            Check.refused("toDocMeta of a deleted document", () -> new Attachment(second, t.wilson()).toDocMeta());
            Check.refused("a second delete", () -> new Attachment(second, t.wilson()).delete());

            set.delete(idOf(third));
            Check.equal("after AttachmentSet.delete(id)", 0, set.thisPageSize());
        }
        finally {
            wo.delete();
        }
    }
}
