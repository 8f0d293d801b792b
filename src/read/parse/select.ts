import type { Aggregate, SelectItem } from './ast';
import { Lexer } from './lexer';


// oslc.select (and the `properties` header): `*`, `a`, `rel.a`, `child{…}` recursively, `a--alias`, and
// aggregates whose last segment is `_dbcount`, `_dbsum`, `_dbavg`, `_dbmin` or `_dbmax`.

const aggregates = new Map<string, Aggregate>([['_dbcount', 'count'], ['_dbsum', 'sum'], ['_dbavg', 'avg'], ['_dbmin', 'min'], ['_dbmax', 'max']]);

type Named = Exclude<SelectItem, { kind: 'star' }>;

class SelectParser {

    private readonly lexer: Lexer;

    constructor(lexer: Lexer) {

        this.lexer = lexer;
    }

    items(): SelectItem[] {

        const items = [this.item()];
        while (this.lexer.accept(',')) {
            items.push(this.item());
        }

        return items;
    }

    item(): SelectItem {

        const lexer = this.lexer;
        const position = lexer.current.position;
        if (lexer.accept('*')) {
            return { kind: 'star', position };
        }

        const { names } = lexer.path('an attribute or "*"');
        const last = names[names.length - 1]!;
        const aggregate = aggregates.get(last);
        if (aggregate) {
            if (names.length === 1) {
                lexer.fail(`a relationship or attribute before "${last}"`, position, 'none');
            }

            return this.alias({ kind: 'aggregate', path: names.slice(0, -1), aggregate, position });
        }

        if (!lexer.isPunct('{')) {
            return this.alias({ kind: 'attr', path: names, position });
        }

        lexer.enter();
        lexer.next();
        const select = this.items();
        lexer.expect('}', '"," or "}"');
        lexer.leave();
        return this.alias({ kind: 'nested', path: names, select, position });
    }

    // The alias is an output key the client chose: its case is kept.
    alias(item: Named): Named {

        if (this.lexer.accept('--')) {
            item.alias = this.lexer.name('an alias').value;
        }

        return item;
    }
}

export const parseSelect = (text: string, parameter = 'oslc.select'): SelectItem[] => {

    const lexer = new Lexer(text, parameter);
    const items = new SelectParser(lexer).items();
    lexer.end('"," or end of text');
    return items;
};
