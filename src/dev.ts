import { Supervisor } from './dev/supervisor';


// `npm run dev [dir]`: the server, restarted when a file of the structures folder changes (src/dev/supervisor.ts).
const supervisor = new Supervisor({ dir: process.argv[2] ?? process.env.OSPREY_STRUCTURES ?? './structures', dist: __dirname, env: process.env, out: process.stdout, debounceMs: 200 });
const stop = () => void supervisor.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
void supervisor.start();
