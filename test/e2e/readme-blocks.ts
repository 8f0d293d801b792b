// The README's shell blocks, cut into the commands a reader runs, for test/e2e/readme-examples.test.ts.

export interface Block {
    line: number;                               // of the block's first line in README.md
    text: string;
}

export interface Command {
    line: number;                               // within its block, from 0
    requests: number;                           // curl calls it makes
    statuses: number[];                         // besides 2xx, the statuses its trailing comment names
    answer?: string;                            // the answer the README shows after it, without the '# '
}

export const readmeBlocks = (readme: string): Block[] => {

    // Blocks indented in a list item too, without their indentation.
    return [...readme.matchAll(/^( *)```sh\n([\s\S]*?)^\1```$/gm)].map((match) => ({
        line: readme.slice(0, match.index).split('\n').length + 1,
        text: match[2]!.split('\n').map((line) => line.slice(match[1]!.length)).join('\n')
    }));
};

// A command runs to the end of a line outside single quotes and not continued by a backslash. Comment lines are
// not commands; a comment line starting `# {` or `# [` right after a command shows its answer (a remark in
// parentheses after two spaces is not part of it), and the comment lines indented below it continue that answer.
export const statements = (text: string): Command[] => {

    const commands: Command[] = [];
    let current: { line: number; text: string } | undefined;
    let answering: Command | undefined;
    let open = false;
    const lines = text.split('\n');
    for (const [i, line] of lines.entries()) {
        if (current) {
            current.text += '\n' + line;
        }
        else if (/^\s*#/.test(line)) {
            const shown = /^#\s?([{[].*)$/.exec(line);
            const continued = /^#\s{2,}(\S.*)$/.exec(line);
            if (answering && !answering.answer && shown) {
                answering.answer = shown[1]!.replace(/\s{2,}\(.*\)$/, '');
            }
            else if (answering?.answer && continued) {
                answering.answer += ' ' + continued[1]!;
            }
            else {
                answering = undefined;
            }

            continue;
        }
        else if (!line.trim()) {
            answering = undefined;
            continue;
        }
        else {
            current = { line: i, text: line };
        }

        const [stillOpen, comment] = quoting(line, open);
        open = stillOpen;
        if (!open && !line.endsWith('\\')) {
            const statuses = (comment.match(/\b[1-5]\d\d\b/g) ?? []).map(Number);
            const command: Command = { line: current.line, requests: (current.text.match(/(^|[\s(|;&])curl\s/g) ?? []).length, statuses };
            commands.push(command);
            answering = command;
            current = undefined;
        }
    }

    if (current) {
        throw new Error(`a command never ends (an open quote or a trailing backslash) at line ${current.line} of the block`);
    }

    return commands;
};

// Whether a single quote is still open after the line, and the line's trailing comment: a # after white space
// outside quotes starts it, and its apostrophes do not count.
const quoting = (line: string, open: boolean): [boolean, string] => {

    for (let i = 0; i < line.length; ++i) {
        if (line[i] === '\'') {
            open = !open;
        }
        else if (!open && line[i] === '#' && (i === 0 || /\s/.test(line[i - 1]!))) {
            return [open, line.slice(i + 1)];
        }
    }

    return [open, ''];
};

// The answer shown, as a pattern: … stands for anything, white space for any white space (or none).
export const answerPattern = (shown: string): RegExp => {

    const parts = shown.trim().split(/(\s*…\s*|\s+)/).map((part) => {

        if (part.includes('…')) {
            return '[\\s\\S]*?';
        }

        return /^\s+$/.test(part) ? '\\s*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    });
    return new RegExp(`^${parts.join('')}$`);
};
