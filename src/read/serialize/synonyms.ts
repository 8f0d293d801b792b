import type { DomainDef, DomainValue } from '../../structures/definition';


// Domain values as records carry them. A SYNONYM domain's values are Maximo's external values — what records
// store and clients write — and each stands for an internal value (`maxvalue`), which Maximo's own logic reads
// and `internalvalues=1` renders as `{attr}_maxvalue`. A value that declares no `maxvalue` is its own internal
// value, as Maximo's default synonyms are (WAPPR stands for WAPPR).

export const domainEntry = (domain: DomainDef, value: unknown): DomainValue | undefined => domain.values.find((entry) => String(entry.value) === String(value));

export const internalOf = (entry: DomainValue): string => entry.maxvalue ?? String(entry.value);
