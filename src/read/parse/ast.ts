// The closed AST of the OSLC query parameters. Parsers produce it from text; the planner resolves its names
// against a structure. Names are already lower-cased and stripped of `spi:`-style prefixes here.

export type Literal =
    | { kind: 'string'; value: string }
    | { kind: 'number'; value: number }
    | { kind: 'boolean'; value: boolean }
    | { kind: 'param'; name: string };          // :siteid  (saved-query / lookup parameters)

export interface Path { names: string[]; position: number }   // asset.location.status -> ['asset','location','status']; position = 1-based column of its first char

export type Where =
    | { kind: 'and'; terms: Where[] }
    | { kind: 'or'; terms: Where[] }
    | { kind: 'not'; term: Where }
    | { kind: 'compare'; path: Path; op: '=' | '!=' | '<' | '<=' | '>' | '>='; value: Literal }
    | { kind: 'like'; path: Path; negated: boolean; pattern: string }      // pattern keeps its % wildcards
    | { kind: 'isnull'; path: Path; isNull: boolean }
    | { kind: 'in'; path: Path; negated: boolean; values: Literal[] }
    | { kind: 'exists'; path: Path; where: Where };                        // child{...}: some child row matches

export type Aggregate = 'count' | 'sum' | 'avg' | 'min' | 'max';
export type SelectItem =
    | { kind: 'star'; position: number }
    | { kind: 'attr'; path: string[]; alias?: string; position: number }
    | { kind: 'nested'; path: string[]; select: SelectItem[]; alias?: string; position: number }
    | { kind: 'aggregate'; path: string[]; aggregate: Aggregate; alias?: string; position: number };

export interface OrderTerm { path: string[]; direction: 'asc' | 'desc'; position: number }
export type GroupColumn = { kind: 'column'; path: string[]; position: number } | { kind: 'aggregate'; aggregate: Aggregate; attribute?: string; position: number };  // count.* has no attribute
export interface SearchTerm { text: string; exact: boolean }
