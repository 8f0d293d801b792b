import * as Boom from '@hapi/boom';
import Joi from 'joi';

import { maximoError } from '../errors/maximo-error';
import { dateInput } from '../structures/types';
import { own } from '../structures/own';
import type { Row, Structure } from '../structures/registry';
import type { ActionCall } from './call';
import type { Actions } from './registry';
import { checkInvariantsOf } from './engine-writes';
import { busyAmong } from '../workflows/held';


// The actions every structure has (issue 35): `wsmethod:changeStatus`, a status change by the same rules as a
// PATCH of the status (it is one, through the engine), and `system:candelete`, whether this user could delete the
// record now, found out by deleting it in a transaction that always rolls back.

// Unknown keys are refused (Joi's default; dispatch.ts payloadOf). `date` follows the engine's rules for dates
// (years 0001 to 9999, real days), as a PATCH of a date would.
const statusChange = Joi.object({
    status: Joi.string().min(1).max(64).required().description('the new status'),
    date: dateInput().description('when the status changed (the status date and history row): not in the future, not before the current status date; now when not given'),
    memo: Joi.string().allow('').max(254).description('kept with the status history row (its memo: 254 characters, as the structures declare it)')
});

// Whether the record's status can still change: its YAML declares statuses, and the current one has a successor.
const canChangeStatus = (record: Row, structure: Structure): boolean => {

    const { statuses, statusAttribute } = structure.def;
    return statuses !== undefined && (own(statuses, String(record[statusAttribute]))?.length ?? 0) > 0;
};

// The non-persistent attribute a structure carries a status memo in (work orders: memo; assets: statusmemo).
export const memoAttribute = (structure: Structure): string | undefined => ['memo', 'statusmemo'].find((name) => structure.root.attributes.has(name));

// When a status changed: not after now (a change is reported, not scheduled), and not before the record's current
// status date (the history stays in order).
const checkDate = (structure: Structure, record: Row, date: Date, now: Date): void => {

    if (date.getTime() > now.getTime()) {
        throw maximoError('badRequest', `The date of a status change is when it happened, not after now: ${date.toISOString()} is in the future.`, { attribute: 'date' });
    }

    const stored = record.statusdate;
    const since = stored === null || stored === undefined ? undefined : stored instanceof Date ? stored : new Date(String(stored));
    if (since && !Number.isNaN(since.getTime()) && date.getTime() < since.getTime()) {
        throw maximoError('badRequest', `The date of a status change cannot be before the ${structure.root.name} record's current status date (${since.toISOString()}): ${date.toISOString()} is.`, { attribute: 'date' });
    }
};

const changeStatus = async ({ structure, record, payload, write, now }: ActionCall): Promise<undefined> => {

    const { statuses, statusAttribute } = structure.def;
    if (!statuses) {
        throw maximoError('badRequest', `${structure.name} declares no statuses, so wsmethod:changeStatus has nothing to change.`);
    }

    // A change to the status the record has is no change (a PATCH of a whole record may repeat it; an action asks
    // for one): it would write no history row and drop the memo.
    const current = String(record![statusAttribute]);
    if (String(payload.status).toUpperCase() === current.toUpperCase()) {
        throw maximoError('badRequest', `The ${structure.root.name} record is already in status ${current}; wsmethod:changeStatus changes it to another status.`);
    }

    if (payload.date) {
        checkDate(structure, record!, payload.date, now);
    }

    const body: Row = { [statusAttribute]: payload.status };
    if (payload.memo !== undefined && payload.memo !== '') {
        const memo = memoAttribute(structure);
        if (!memo) {
            throw maximoError('badRequest', `${structure.name} keeps no memo with a status change (it has no memo attribute); send the change without memo.`);
        }

        body[memo] = payload.memo;
    }

    await write.update(structure.name, record!, body, payload.date ? { asOf: payload.date } : {});
    return undefined;
};

// A refusal the client could have had from the delete itself (a 4xx in Maximo's shape): the answer is "no, because".
const refusalOf = (error: unknown): string | undefined => (Boom.isBoom(error) && error.output.statusCode < 500 ? error.message : undefined);

const canDelete = async ({ structure, record, write }: ActionCall): Promise<Row> => {

    try {
        await write.remove(structure.name, record!);
        await checkInvariantsOf(write);
        return { candelete: true };
    }
    catch (error) {
        const reason = refusalOf(error);
        if (reason === undefined) {
            throw error;
        }

        return { candelete: false, reason };
    }
};

export const registerBuiltInActions = (actions: Actions): void => {

    actions.register('*', 'wsmethod:changeStatus', {
        handler: changeStatus,
        schema: statusChange,
        description: 'Change the status, as the structure\'s status transitions allow',
        available: canChangeStatus,
        // Not while a workflow waits on the record: the status is the workflow's to move (src/workflows/held.ts).
        availableAmong: async (records, { db, registry, structure }) => {

            const busy = await busyAmong(db, registry, structure, records.map((record) => record[structure.root.uniqueColumn]));
            return (record) => !busy.has(String(record[structure.root.uniqueColumn]));
        }
    });
    actions.register('*', 'system:candelete', {
        handler: canDelete,
        right: 'none',
        dryRun: true,
        description: 'Whether this user can delete the record now, and why not'
    });
};
