import { runCli } from './cli/run';


// `npm run osprey -- user add NAME --group G` (node dist/src/cli.js): see src/cli/run.ts.
void runCli(process.argv.slice(2), process).then((code) => {

    process.exitCode = code;
});
