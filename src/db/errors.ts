import type * as Boom from '@hapi/boom';

import { maximoError, type MaximoErrorData } from '../errors/maximo-error';


// Constraint violations that input can cause, as client errors. Validation catches them first; these are the
// races it cannot see (two writers inserting the same key at once). Anything else stays a server error.
export const databaseInputError = (error: unknown): Boom.Boom<MaximoErrorData> | undefined => {

    const { code, message = '' } = (error ?? {}) as { code?: string; message?: string };
    if (code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || /UNIQUE constraint failed/.test(message)) {
        return maximoError('duplicateRecord', 'A record with these key values already exists.');
    }

    if (code === '23502' || code === 'SQLITE_CONSTRAINT_NOTNULL') {
        // The column the database names (PostgreSQL's `column`; SQLite's message `… failed: table.column`).
        const column = (error as { column?: string }).column ?? /NOT NULL constraint failed: [^.\s]+\.(\w+)/.exec(message)?.[1];
        return column === undefined ? maximoError('required', 'A required value is missing.') : maximoError('required', `${column.toUpperCase()} is required: it cannot be empty.`, { attribute: column.toLowerCase() });
    }
};
