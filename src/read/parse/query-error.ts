// A client's query parameter that cannot be used: the parsers and the planner throw it, the error edge turns
// it into Maximo's 400 (BMXAA8744E). The message names the parameter and the column so a client can find it.

export class QueryError extends Error {

    readonly parameter: string;
    readonly position: number;          // 1-based column in the parameter's text

    constructor(parameter: string, position: number, detail: string) {

        // Callers may write the detail as a sentence; the column reads better without its full stop.
        super(`${parameter}: ${detail.replace(/\.$/, '')} at column ${position}`);
        this.name = 'QueryError';
        this.parameter = parameter;
        this.position = position;
    }
}
