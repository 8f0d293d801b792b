import * as Readline from 'node:readline';


// A password for the osprey command: never from the command line unless the caller says so with --password
// (a command line is seen by every user of the machine, and kept in shell histories). From a terminal it is
// asked for twice without echo; from a pipe it is the first line of standard input (`printf '%s\n' "$PW" | …`).

const readFirstLine = async (input: NodeJS.ReadableStream): Promise<string> => {

    let text = '';
    for await (const chunk of input) {
        text += String(chunk);
        if (text.includes('\n')) {
            break;
        }
    }

    return text.split(/\r?\n/)[0]!;
};

// At a terminal: the lines typed, none echoed (readline's echo is turned off; the prompts are written here).
const askTwice = async (input: NodeJS.ReadStream, output: NodeJS.WriteStream): Promise<[string, string]> => {

    const lines = Readline.createInterface({ input, output, terminal: true });
    (lines as unknown as { _writeToOutput: (text: string) => void })._writeToOutput = () => undefined;
    const queue: string[] = [];
    let waiting: ((line: string) => void) | undefined;
    lines.on('line', (line) => (waiting ? waiting(line) : queue.push(line)));
    const next = (prompt: string) => {

        output.write(prompt);
        return new Promise<string>((resolve) => {

            waiting = (line) => {

                waiting = undefined;
                output.write('\n');
                resolve(line);
            };

            if (queue.length) {
                waiting(queue.shift()!);
            }
        });
    };

    try {
        return [await next('Password: '), await next('Password again: ')];
    }
    finally {
        lines.close();
    }
};

export const readPassword = async (input: NodeJS.ReadStream, output: NodeJS.WriteStream): Promise<string> => {

    if (!input.isTTY) {
        return await readFirstLine(input);
    }

    const [first, again] = await askTwice(input, output);
    if (first !== again) {
        throw new Error('The two passwords differ.');
    }

    return first;
};
