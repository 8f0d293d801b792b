import type { Aggregate, GroupColumn } from './ast';
import { Lexer } from './lexer';


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
    return columns;
};
