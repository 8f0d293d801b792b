import type { Aggregate, GroupColumn } from './ast';
import { Lexer } from './lexer';
import { QueryError } from './query-error';


// gbcols: group columns and aggregates, `siteid,status,count.*,sum.estdur,avg.x,min.x,max.x`. A bare `count`
// (no dot) is a column of that name: only `name.` makes an aggregate.

const aggregates = new Set<string>(['count', 'sum', 'avg', 'min', 'max']);

const column = (lexer: Lexer): GroupColumn => {

    const position = lexer.current.position;
    const keyword = lexer.keyword();
    if (keyword === undefined || !aggregates.has(keyword)) {
        const { names } = lexer.path('a column or an aggregate');
        return { kind: 'column', path: names, position };
    }

    lexer.next();
    if (!lexer.accept('.')) {
        return { kind: 'column', path: [keyword], position };
    }

    const aggregate = keyword as Aggregate;
    if (aggregate === 'count' && lexer.accept('*')) {
        return { kind: 'aggregate', aggregate, position };
    }

    const attribute = lexer.name(aggregate === 'count' ? 'an attribute or "*"' : 'an attribute').value.toLowerCase();
    return { kind: 'aggregate', aggregate, attribute, position };
};

export const parseGroupBy = (text: string, parameter = 'gbcols'): GroupColumn[] => {

    const lexer = new Lexer(text, parameter);
    const columns = [column(lexer)];
    while (lexer.accept(',')) {
        columns.push(column(lexer));
    }

    lexer.end('"," or end of text');
    // A column or an aggregate named twice would group by, or answer, the same thing twice (each group's
    // collectionref naming its term twice): refused, as an alias named twice in a select is.
    const seen = new Set<string>();
    for (const each of columns) {
        const name = each.kind === 'column' ? each.path.join('.').toLowerCase() : `${each.aggregate}.${each.attribute ?? '*'}`;
        const key = `${each.kind} ${name}`;           // the column spi:sum.x is not the aggregate sum.x
        if (seen.has(key)) {
            throw new QueryError(parameter, each.position, `${name} is named twice`);
        }

        seen.add(key);
    }

    return columns;
};
