import type { SearchTerm } from './ast';
import { checkText } from './lexer';


// oslc.searchTerms, as Maximo reads it: words split on whitespace and commas, each found anywhere in a search
// attribute. A phrase in one pair of quotes ("pump 100", how the clients quote every term) is one such term;
// only doubled quotes (""pump 100"") ask for the exact value. A quote left unclosed is dropped: search terms
// are free text and never fail to parse.
const tokens = /""([^"]*)""|"([^"]*)"|([^\s,"]+)/g;

export const parseSearchTerms = (text: string, parameter = 'oslc.searchTerms'): SearchTerm[] => {

    const terms: SearchTerm[] = [];
    for (const [, exact, quoted, bare] of checkText(text, parameter).matchAll(tokens)) {
        const term = (exact ?? quoted ?? bare)!.trim();
        if (term) {
            terms.push({ text: term, exact: exact !== undefined });
        }
    }

    return terms;
};
