export interface Problem {
    readonly file: string;
    readonly path: string;
    readonly message: string;
}

// Thrown when structure files are wrong: it carries every problem found, not just the first.
export class StructureError extends Error {

    readonly problems: readonly Problem[];

    constructor(problems: readonly Problem[]) {

        super(`Object structures are not valid (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${problems.map(formatProblem).join('\n')}`);
        this.problems = problems;
    }
}

export const formatProblem = (problem: Problem): string => `- ${problem.file}${problem.path ? ` at ${problem.path}` : ''}: ${problem.message}`;
