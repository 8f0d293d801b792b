import type { DomainDef, DomainValue } from '../../structures/definition';
import { oncePer } from '../../db/remember';


// Domain values as records carry them. A SYNONYM domain's values are Maximo's external values — what records
// store and clients write — and each stands for an internal value (`maxvalue`), which Maximo's own logic reads
// and `internalvalues=1` renders as `{attr}_maxvalue`. A value that declares no `maxvalue` is its own internal
// value, as Maximo's default synonyms are (WAPPR stands for WAPPR).

// Each domain's values by their text, made once per domain (domains are loaded with the structures and do
// not change): every rendered value of a domain attribute looks its description up, a page of 100 records
// several times each. The first of two values with one text wins, as a search in declared order would find.
const entriesOf = oncePer((domain: DomainDef): ReadonlyMap<string, DomainValue> => {

    const entries = new Map<string, DomainValue>();
    for (const entry of domain.values) {
        if (!entries.has(String(entry.value))) {
            entries.set(String(entry.value), entry);
        }
    }

    return entries;
});

export const domainEntry = (domain: DomainDef, value: unknown): DomainValue | undefined => entriesOf(domain).get(String(value));

export const internalOf = (entry: DomainValue): string => entry.maxvalue ?? String(entry.value);
