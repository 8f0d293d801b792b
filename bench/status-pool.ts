import { createKnex } from '../src/db/knex';
import { readGenerated } from '../src/demo/generate-data';
import { encodeBase64Id } from '../src/structures/resource-id';
import { datasetOptions } from './dataset';


// The work orders a status-change scenario changes, and the status each request sets.
//
// Any two of these statuses may follow each other (structures/mxapiwodetail.yaml `statuses:`), and all three
// are open statuses (scenarios.ts openStatuses), so the records stay in the pages and counts the other scenarios
// read, and stay in this pool, run after run.
export const rotation = ['APPR', 'WSCH', 'WMATL'] as const;

// Records per pool at most: a record comes round again after this many requests of its scenario.
const largest = 2000;
// Fewer would bring a record round again while its last request may still be in flight (10 connections).
const smallest = 100;

interface PoolRecord {
    readonly id: string;
    readonly start: number;
}

// One scenario's records, visited in turn by a cursor kept in the bench's process (it sends every request of a
// run, to Osprey and to baseline (b) one after the other, never both at once). The n-th visit of a record sets the
// status after the one before it in `rotation`. Since a status change X → X is refused, each request must set a
// status the record does not hold: the one it sets differs from the last two set, so it is still valid when the
// request before it on the record was never carried out (autocannon may build a request at a measurement's end
// that it does not send); the next one puts the rotation back in step.
export class StatusPool {

    private records: PoolRecord[] = [];
    private cursor = 0;

    // `part` of two: two scenarios' pools share no record. The records are the generated work orders holding a
    // status of the rotation, each started from the status it holds now (a run cut short leaves any of them).
    constructor(private readonly part: 0 | 1) { }

    async load(databaseUrl: string): Promise<void> {

        const knex = createKnex(datasetOptions(databaseUrl));
        try {
            const generated = await readGenerated(knex);
            const maxId = generated?.maxIds.workorder ?? 0;
            const rows = await knex('workorder').select('siteid', 'wonum', 'status').whereIn('status', rotation).andWhere('workorderid', '<=', maxId).orderBy('workorderid').limit(2 * largest) as { siteid: string; wonum: string; status: typeof rotation[number] }[];
            this.records = rows.filter((_, i) => i % 2 === this.part).map((row) => ({ id: encodeBase64Id([row.siteid, row.wonum]), start: rotation.indexOf(row.status) }));
            this.cursor = 0;
            if (this.records.length < smallest) {
                throw new Error(`The data set has ${this.records.length} work orders for a status-change scenario, ${smallest} are needed: generate more work orders.`);
            }
        }
        finally {
            await knex.destroy();
        }
    }

    // The next request's record and the status it sets.
    next(): { id: string; status: string } {

        if (!this.records.length) {
            throw new Error('A status-change scenario ran before its pool was loaded (Scenario.prepare).');
        }

        const record = this.records[this.cursor % this.records.length]!;
        const visit = Math.floor(this.cursor / this.records.length);
        this.cursor++;
        return { id: record.id, status: rotation[(record.start + visit + 1) % rotation.length]! };
    }

    // A request of the same shape that moves nothing, for baseline (a), which answers a constant and writes nothing.
    peek(): { id: string; status: string } {

        return { id: this.records[0]!.id, status: rotation[0] };
    }
}
