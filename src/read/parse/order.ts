import type { OrderTerm } from './ast';
import { Lexer } from './lexer';


// oslc.orderBy: `+a,-b,c`. In a URL query `+` decodes to a space, so `+a` usually arrives as ` a`: whitespace
// is skipped and a term without a sign is ascending, which reads both the same way.
export const parseOrderBy = (text: string, parameter = 'oslc.orderBy'): OrderTerm[] => {

    const lexer = new Lexer(text, parameter);
    const terms: OrderTerm[] = [];
    do {
        const direction = lexer.accept('-') ? 'desc' : 'asc';
        if (direction === 'asc') {
            lexer.accept('+');
        }

        const { names, position } = lexer.path('an attribute');
        terms.push({ path: names, direction, position });
    }
    while (lexer.accept(','));

    lexer.end('"," or end of text');
    return terms;
};
