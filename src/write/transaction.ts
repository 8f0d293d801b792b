import type { Knex } from 'knex';

import { databaseInputError } from '../db/errors';
import { transaction } from '../db/transaction';
import { attributeError, batchedError } from '../errors/maximo-error';
import type { Structure } from '../structures/registry';
import type { WriteContext, WriteScope } from './context';
import { recordTransactionId } from './apply/transaction-ids';


export interface WriteSettings {
    readonly knex: Knex;
    readonly ctx: WriteContext;
    readonly structure: Structure;
    readonly retentionMs: number;
}

// The attribute errors found so far end the write: the first alone, or all with `batcherror: 1`.
export const throwErrors = (scope: WriteScope): void => {

    if (scope.errors.length) {
        throw scope.ctx.batchErrors ? batchedError(scope.errors) : attributeError(scope.errors[0]!);
    }
};

// Runs one write in one database transaction: any error rolls back everything, the transaction id included.
export const runWrite = async <T>(settings: WriteSettings, work: (scope: WriteScope) => Promise<T>): Promise<T> => {

    const { knex, ctx, structure } = settings;
    try {
        return await transaction(knex, async (db) => {

            const scope: WriteScope = { db, ctx, structure, errors: [] };
            if (ctx.transactionId !== undefined) {
                await recordTransactionId(db, ctx.transactionId, ctx.now.getTime(), settings.retentionMs);
            }

            return await work(scope);
        });
    }
    catch (error) {
        throw databaseInputError(error) ?? error;
    }
};
