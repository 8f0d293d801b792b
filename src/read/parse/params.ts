import type { Literal, Where } from './ast';


// A where without the terms that compare with a parameter the context has no value for: a lookup without a
// record (zombie) or with a new one (newmbo) lists every value those terms would have narrowed, not none.
// Undefined when nothing is left. Terms inside a child scope (`woactivity{…}`) are kept as they are.

const missing = (literal: Literal, params: Readonly<Record<string, unknown>>) => literal.kind === 'param' && !Object.hasOwn(params, literal.name);

export const withoutMissingParams = (where: Where, params: Readonly<Record<string, unknown>>): Where | undefined => {

    switch (where.kind) {
        case 'compare': return missing(where.value, params) ? undefined : where;
        case 'in': return where.values.some((value) => missing(value, params)) ? undefined : where;
        case 'and': {
            const terms = where.terms.map((term) => withoutMissingParams(term, params)).filter((term): term is Where => term !== undefined);
            return terms.length > 1 ? { kind: 'and', terms } : terms[0];
        }

        case 'or': {
            // An or with an unconstrained term is unconstrained.
            const terms = where.terms.map((term) => withoutMissingParams(term, params));
            return terms.every((term): term is Where => term !== undefined) ? { kind: 'or', terms } : undefined;
        }

        case 'not': {
            const term = withoutMissingParams(where.term, params);
            return term && { kind: 'not', term };
        }

        default: return where;
    }
};

// The parameters (`:name`) a where reads, each once, in the order they appear.
export const parameterNames = (where: Where): string[] => {

    const names = new Set<string>();
    const visit = (term: Where): void => {

        switch (term.kind) {
            case 'and':
            case 'or': return term.terms.forEach(visit);
            case 'not': return visit(term.term);
            case 'exists': return visit(term.where);
            case 'compare': return void (term.value.kind === 'param' && names.add(term.value.name));
            case 'in': return term.values.forEach((value) => value.kind === 'param' && names.add(value.name));
            default: return undefined;
        }
    };

    visit(where);
    return [...names];
};
