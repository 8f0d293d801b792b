import type { SearchTerm } from './ast';
import { checkText } from './lexer';


// oslc.searchTerms: words split on whitespace and commas; a quoted phrase is one exact term. A run of quotes
// opens or closes a phrase, so Maximo's doubled `""pump 100""` reads like `"pump 100"`, and an unclosed
// quote runs to the end of the text rather than failing: search terms are free text.
export const parseSearchTerms = (text: string, parameter = 'oslc.searchTerms'): SearchTerm[] => {

    const parts = checkText(text, parameter).split(/"+/);
    const terms: SearchTerm[] = [];
    for (let i = 0; i < parts.length; ++i) {
        const quoted = i % 2 === 1;
        const texts = quoted ? [parts[i]!.trim()] : parts[i]!.split(/[\s,]+/);
        for (const term of texts) {
            if (term) {
                terms.push({ text: term, exact: quoted });
            }
        }
    }

    return terms;
};
