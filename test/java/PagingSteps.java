import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

import javax.json.Json;
import javax.json.JsonObject;

import com.ibm.maximo.oslc.Resource;
import com.ibm.maximo.oslc.ResourceSet;

// Pages as the client walks them (the nextPage and previousPage hrefs of responseInfo), its counts, and stable
// paging across an insert.
final class PagingSteps {

    private static final String WO = "mxapiwodetail";
    private static final String BEDFORD = "siteid=\"BEDFORD\"";

    private PagingSteps() {
    }

    static List<Step> steps() {
        return List.of(
                new Step("paging forwards and back (nextPage, previousPage, paging(true))", PagingSteps::forwardsAndBack),
                new Step("count, totalCount and totalCount(true) agree with a plain query", PagingSteps::counts),
                new Step("stable paging: an insert does not shift the next page", PagingSteps::stable));
    }

    private static List<String> wonums(ResourceSet set) throws Exception {
        return Members.values(Members.of(set), "wonum");
    }

    private static void forwardsAndBack(Target t) throws Exception {
        ResourceSet set = t.wilson().resourceSet(WO).where(BEDFORD).select("wonum").orderBy("wonum").pageSize(40).paging(true).fetch();
        int total = t.plain.count(WO, BEDFORD);
        List<String> first = wonums(set);
        Check.equal("first page", 40, first.size());
        Check.isTrue("a next page", set.hasNextPage());

        List<String> second = wonums(set.nextPage());
        Check.equal("second page", 40, second.size());
        Check.isTrue("the second page follows the first: " + first.get(39) + " then " + second.get(0), first.get(39).compareTo(second.get(0)) > 0);
        List<String> back = wonums(set.previousPage());
        Check.equal("back on the first page", first, back);

        List<String> all = new ArrayList<>(first);
        int pages = 1;
        while (set.hasNextPage()) {
            all.addAll(wonums(set.nextPage()));
            pages++;
        }
        Check.equal("pages", (total + 39) / 40, pages);
        Check.equal("last page", total - 40 * (pages - 1), set.count());
        Check.equal("rows over all pages", total, all.size());
        Check.equal("distinct rows over all pages", total, new HashSet<>(all).size());
    }

    private static void counts(Target t) throws Exception {
        String where = "status=\"APPR\"";
        ResourceSet set = t.wilson().resourceSet(WO).where(where).select("wonum").pageSize(10).fetch();
        int expected = t.plain.count(WO, where);
        Check.isTrue("more than a page", expected > 10);
        Check.equal("count (this page)", 10, set.count());
        Check.equal("responseInfo.totalCount", expected, set.toJSON().getJsonObject("responseInfo").getInt("totalCount"));
        Check.equal("responseInfo.totalPages", (expected + 9) / 10, set.toJSON().getJsonObject("responseInfo").getInt("totalPages"));
        Check.equal("totalCount()", expected, set.totalCount());
        Check.equal("totalCount(true)", expected, set.totalCount(true));
        Check.equal("totalCount(false)", expected, set.totalCount(false));

        ResourceSet all = t.wilson().resourceSet(WO).where(where).select("wonum").pageSize(1000).fetch();
        Check.equal("members of one page holding them all", expected, all.count());
        Check.equal("totalCount() of a single page", expected, all.totalCount());
    }

    // A work order that sorts first (descending wonum) is created between the pages: a plain page 2 then repeats
    // the last row of page 1, the stable one continues right after it.
    private static void stable(Target t) throws Exception {
        ResourceSet stable = t.wilson().resourceSet(WO).where(BEDFORD).select("wonum").orderBy("wonum").pageSize(5).stablePaging(true).fetch();
        ResourceSet shifting = t.wilson().resourceSet(WO).where(BEDFORD).select("wonum").orderBy("wonum").pageSize(5).fetch();
        List<String> first = wonums(stable);
        Check.equal("first pages", wonums(shifting), first);
        List<String> before = Members.values(Members.of(t.plain.object("/os/" + WO + "?oslc.select=wonum&oslc.orderBy=-wonum&oslc.pageSize=5&pageno=2&oslc.where=" + Plain.encode(BEDFORD))), "wonum");

        Resource created = t.wilson().resourceSet(WO).create(Json.createObjectBuilder().add("wonum", "ZZ-STABLE-" + t.label.toUpperCase()).add("siteid", "BEDFORD").add("description", "sorts first").build());
        try {
            Check.equal("stable second page: the rows after the first page as they were", before, wonums(stable.nextPage()));
            List<String> shifted = new ArrayList<>(List.of(first.get(4)));
            shifted.addAll(before.subList(0, 4));
            Check.equal("plain second page: shifted by the insert", shifted, wonums(shifting.nextPage()));
        }
        finally {
            created.delete();
        }
    }
}
