export interface Problem {
    readonly file: string;
    readonly path: string;
    readonly message: string;
    /** Where in the file (1-based), when the file parsed far enough to tell. */
    readonly line?: number;
    readonly column?: number;
    /** The YAML parser's own excerpt of the lines, with a caret under the spot. */
    readonly excerpt?: string;
    /** Where the position is found: on the key the path ends in rather than its value (a key not allowed),
     * or this many characters into a one-line string value (the column a where's parser names). */
    readonly onKey?: boolean;
    readonly within?: number;
}

// Thrown when structure files are wrong: it carries every problem found, not just the first.
export class StructureError extends Error {

    readonly problems: readonly Problem[];

    constructor(problems: readonly Problem[]) {

        super(`Object structures are not valid (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${problems.map(formatProblem).join('\n')}`);
        this.problems = problems;
    }
}

// One line per problem, `file:line:column at path: message`, as editors and terminals link file positions; the
// parser's excerpt, if any, below it, indented.
export const formatProblem = (problem: Problem): string => {

    const where = problem.line === undefined ? '' : `:${problem.line}:${problem.column}`;
    const excerpt = problem.excerpt ? `\n${problem.excerpt.replace(/\n+$/, '').split('\n').map((line) => `    ${line}`).join('\n')}` : '';
    return `- ${problem.file}${where}${problem.path ? ` at ${problem.path}` : ''}: ${problem.message}${excerpt}`;
};
