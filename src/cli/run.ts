import { loadOptions } from '../config';
import { UsageError } from './args';
import { resolveCommand, usage, type CommandContext } from './commands';
import { openDatabase } from './database';
import { readPassword } from './password';


// `osprey COMMAND …` (issue 37): users and groups without a server, for the first administrator and for scripts.
// The database and structures come from the settings a server reads (DATABASE_URL, OSPREY_STRUCTURES, …, or
// --config FILE). Exit codes: 0 done, 1 refused or failed, 2 a command or option not understood.

export interface CliIo {
    readonly env: NodeJS.ProcessEnv;
    readonly stdin: NodeJS.ReadStream;
    readonly stdout: NodeJS.WriteStream;
    readonly stderr: NodeJS.WriteStream;
}

// --config FILE, taken out of the words wherever it is.
const configOf = (words: string[]): string | undefined => {

    const index = words.findIndex((word) => word === '--config' || word.startsWith('--config='));
    if (index < 0) {
        return undefined;
    }

    const [word] = words.splice(index, 1) as [string];
    const file = word.includes('=') ? word.slice('--config='.length) : words.splice(index, 1)[0];
    if (!file) {
        throw new UsageError('--config needs a file.');
    }

    return file;
};

export const runCli = async (argv: readonly string[], io: CliIo): Promise<number> => {

    const words = [...argv];
    if (words.length === 1 && ['help', '--help', '-h'].includes(words[0]!)) {
        io.stdout.write(`${usage()}\n`);
        return 0;
    }

    try {
        const config = configOf(words);
        const { command, args, options } = resolveCommand(words);
        const settings = loadOptions(io.env, config);
        const { knex, users } = await openDatabase(settings);
        try {
            const context: CommandContext = { knex, users, passwordMinLength: settings.passwordMinLength, readPassword: () => readPassword(io.stdin, io.stderr) };
            const lines = await command.run(context, args, options);
            io.stdout.write(lines.map((line) => `${line}\n`).join(''));
            return 0;
        }
        finally {
            await knex.destroy();
        }
    }
    catch (error) {
        if (error instanceof UsageError) {
            io.stderr.write(`osprey: ${error.message}\n${usage()}\n`);
            return 2;
        }

        // A refusal (CommandError), bad settings (ConfigError), the last administrator kept, a database that
        // cannot be reached: the message says which.
        io.stderr.write(`osprey: ${(error as Error).message}\n`);
        return 1;
    }
};
