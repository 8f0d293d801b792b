import type { Knex } from 'knex';

import { isPostgres } from './knex';


// Tables Osprey itself needs, whatever the structures declare. Times are epoch milliseconds, the same on
// every database, so no driver converts them.
// Epoch milliseconds now, as a column default of this database.
const nowMs = (knex: Knex) => knex.raw(isPostgres(knex) ? '(floor(extract(epoch from clock_timestamp()) * 1000))::bigint' : '(cast((julianday(\'now\') - 2440587.5) * 86400000 as integer))');

const tables: Record<string, (t: Knex.CreateTableBuilder, knex: Knex) => void> = {
    // Users, groups and memberships are also served as the object structures MXAPIMAXUSER and MXAPIMAXGROUP
    // (src/users): each has the numeric unique id and the rowstamp of a structure's table, and the names stay unique.
    osprey_user: (t, knex) => {

        t.bigIncrements('maxuserid').primary();
        t.string('userid', 30).notNullable().unique();
        t.string('passwordhash', 300);
        t.string('personid', 30);
        t.string('displayname', 100);
        t.string('primaryemail', 100);
        t.string('status', 16).notNullable().defaultTo('ACTIVE');
        t.string('defsite', 8);
        t.string('insertsite', 8);
        t.string('defaultorg', 8);
        t.string('langcode', 4).notNullable().defaultTo('EN');
        // Set by the database, so a user the write engine makes (POST os/mxapimaxuser) has it too.
        t.bigInteger('created').notNullable().defaultTo(nowMs(knex));
        // Moves whenever the user's password or status is set, and differs between a deleted user and one made
        // later under the same name (src/auth/users.ts): sessions and remembered logins made under another end.
        t.string('credstamp', 24).notNullable().defaultTo('');
        t.bigInteger('rowstamp').notNullable().defaultTo(1);
    },
    osprey_group: (t) => {

        t.bigIncrements('maxgroupid').primary();
        t.string('groupname', 30).notNullable().unique();
        t.string('description', 100);
        t.boolean('isadmin').notNullable().defaultTo(false);
        t.bigInteger('rowstamp').notNullable().defaultTo(1);
    },
    osprey_groupuser: (t) => {

        t.bigIncrements('groupuserid').primary();
        t.string('groupname', 30).notNullable().references('osprey_group.groupname').onDelete('CASCADE');
        t.string('userid', 30).notNullable().references('osprey_user.userid').onDelete('CASCADE');
        t.unique(['groupname', 'userid']);
        t.bigInteger('rowstamp').notNullable().defaultTo(1);
    },
    osprey_session: (t) => {

        t.string('id', 64).primary();
        t.string('userid', 30).notNullable().references('osprey_user.userid').onDelete('CASCADE');
        t.bigInteger('created').notNullable();
        t.bigInteger('lastseen').notNullable();
        // The user's stamp (UserProfile.stamp) when the session was opened: a session of another stamp is over.
        t.string('userstamp', 24).notNullable().defaultTo('');
    },
    // One row, moved by a trigger in the transaction of every change to users, groups, memberships and API keys
    // (src/auth/credential-stamp.ts): each node reads it on every authenticated request and keeps what it
    // remembers of logins only while it stays.
    osprey_authstamp: (t) => {

        t.integer('id').primary();
        t.bigInteger('stamp').notNullable();
    },
    // Failed logins per user and per client address, shared by every node (src/auth/throttle.ts).
    osprey_loginfailure: (t) => {

        t.string('name', 300).primary();
        t.integer('failures').notNullable();
        t.bigInteger('since').notNullable();
    },
    osprey_member: (t) => {

        t.string('id', 40).primary();
        t.string('host', 200).notNullable();
        t.integer('pid').notNullable();
        t.string('address', 200);
        t.string('version', 30).notNullable();
        t.bigInteger('started').notNullable();
        t.bigInteger('heartbeat').notNullable();
    },
    // A transactionid is its user's on one structure (transaction-ids.ts). Rows of a database made before the
    // scope have userid and objectstructure '' (upgradeSystemTables): remembered for anyone until they expire.
    osprey_transaction: (t) => {

        t.string('id', 250).notNullable();
        t.string('userid', 100).notNullable().defaultTo('');
        t.string('objectstructure', 100).notNullable().defaultTo('');
        t.bigInteger('created').notNullable().index();
        t.primary(['id', 'userid', 'objectstructure']);
    },
    // The last key handed out per generated attribute and scope (the other key values, e.g. the site).
    osprey_autokey: (t) => {

        t.string('objectname', 63).notNullable();
        t.string('attribute', 63).notNullable();
        t.string('scope', 250).notNullable();
        t.bigInteger('last').notNullable();
        t.primary(['objectname', 'attribute', 'scope']);
    },
    osprey_column: (t) => {

        t.string('tablename', 63).notNullable();
        t.string('columnname', 63).notNullable();
        t.string('maximotype', 16).notNullable();
        t.integer('length');
        t.integer('scale');
        t.primary(['tablename', 'columnname']);
    },
    osprey_setting: (t) => {

        t.string('name', 100).primary();
        t.text('value');
    },
    // The system properties set through the system service (src/services/properties.ts): one row per property
    // set, read by every node when it needs the value, so a change holds on all of them at once.
    osprey_property: (t) => {

        t.string('name', 100).primary();
        t.text('value');
        t.bigInteger('changed').notNullable();
        t.string('changeby', 30).notNullable();
    },
    // Attachments (src/attachments): one row per document of a record, named by the record's business object and
    // unique id, so every structure of that object sees the same documents. A FILE's bytes are kept in chunks
    // under its content key; a URL has none.
    osprey_doclink: (t) => {

        t.bigIncrements('doclinksid');
        t.string('ownertable', 63).notNullable();
        t.bigInteger('ownerid').notNullable();
        t.string('document', 255).notNullable();
        t.string('description', 1000);
        t.string('doctype', 64).notNullable();
        t.string('urltype', 8).notNullable();
        t.string('urlname', 2000);
        t.string('mimetype', 255).notNullable();
        t.bigInteger('size').notNullable();
        t.string('sha256', 64);
        t.string('contentkey', 40);
        t.integer('chunksize');
        t.string('store', 16);
        t.string('createby', 30).notNullable();
        t.bigInteger('created').notNullable();
        t.index(['ownertable', 'ownerid']);
    },
    // The bytes of a document in fixed-size chunks, each with its SHA-256, so a range is read and checked without
    // the rest; `data` is null where the folder store keeps the bytes in a file.
    osprey_docchunk: (t) => {

        t.string('contentkey', 40).notNullable();
        t.integer('seq').notNullable();
        t.string('sha256', 64).notNullable();
        t.binary('data');
        t.primary(['contentkey', 'seq']);
    },
    // An upload under way: its chunks are written in short transactions of their own, and belong to no document
    // until the last one. One left by a stopped node is swept after a day.
    osprey_docupload: (t) => {

        t.string('contentkey', 40).primary();
        t.string('store', 16).notNullable();
        t.bigInteger('started').notNullable();
    },
    // Content whose document is gone (deleted, its record deleted, an upload that failed): its chunks (or file)
    // are removed after the commit, in bounded steps, by whichever node sweeps first.
    osprey_docgone: (t) => {

        t.string('contentkey', 40).primary();
        t.string('store', 16).notNullable();
        t.bigInteger('gone').notNullable();
    }
};

export const systemTableNames = Object.keys(tables);

// Document ids start at 1000001: IBM's Java client makes a document's meta URL by replacing its id's text
// everywhere in the URL (AttachmentSet.fetchMember), so an id of 1 would also change a port 3001 or a record id.
const firstDocumentId = 1_000_001;
const created: Record<string, (knex: Knex) => Promise<unknown>> = {
    osprey_doclink: (knex) => {

        return isPostgres(knex)
            ? knex.raw(`alter sequence "osprey_doclink_doclinksid_seq" restart with ${firstDocumentId}`)
            : knex.raw(`insert into sqlite_sequence (name, seq) values ('osprey_doclink', ${firstDocumentId - 1})`);
    }
};

// A system table of an existing database changed since: brought to the declaration above in place, keeping its rows.
const upgrades: readonly { readonly table: string; readonly done: (knex: Knex) => Promise<boolean>; readonly upgrade: (t: Knex.AlterTableBuilder) => void }[] = [
    {
        // transactionids were global, keyed by the id alone; they are scoped by user and structure.
        table: 'osprey_transaction',
        done: (knex) => knex.schema.hasColumn('osprey_transaction', 'userid'),
        upgrade: (t) => {

            t.string('userid', 100).notNullable().defaultTo('');
            t.string('objectstructure', 100).notNullable().defaultTo('');
            t.dropPrimary();
            t.primary(['id', 'userid', 'objectstructure']);
        }
    },
    {
        // Credential stamps (issue 34).
        table: 'osprey_user',
        done: (knex) => knex.schema.hasColumn('osprey_user', 'credstamp'),
        upgrade: (t) => {

            t.string('credstamp', 24).notNullable().defaultTo('');
        }
    },
    {
        table: 'osprey_session',
        done: (knex) => knex.schema.hasColumn('osprey_session', 'userstamp'),
        upgrade: (t) => {

            t.string('userstamp', 24).notNullable().defaultTo('');
        }
    }
];

// The user tables of a database made before they were served as structures (issue 37) get their numeric ids (each
// row numbered) and rowstamps, keeping every row. PostgreSQL adds the columns in place. SQLite cannot add a generated
// column, so it rebuilds the three tables by its own recipe (new table, copy, drop, rename), with foreign keys off
// so that dropping the old user table does not cascade to sessions and memberships; the triggers that went with the
// old tables are made again at every start (credential-stamp.ts).
const servedUserTables = [['osprey_user', 'maxuserid'], ['osprey_group', 'maxgroupid'], ['osprey_groupuser', 'groupuserid']] as const;

const upgradeUserTables = async (knex: Knex): Promise<boolean> => {

    if (await knex.schema.hasColumn('osprey_user', 'maxuserid')) {
        return false;
    }

    if (isPostgres(knex)) {
        await knex.transaction(async (trx) => {

            for (const [table, id] of servedUserTables) {
                await trx.raw('alter table ?? add column ?? bigserial not null unique, add column rowstamp bigint not null default 1', [table, id]);
            }

            await trx.raw(`alter table osprey_user alter column created set default ${nowMs(trx).toQuery()}`);
        });
        return true;
    }

    await knex.raw('pragma foreign_keys = off');
    try {
        await knex.transaction(async (trx) => {

            for (const [table] of servedUserTables) {
                const columns = Object.keys(await trx(table).columnInfo());
                await trx.schema.createTable(`${table}__new`, (t) => tables[table]!(t, trx));
                await trx.raw(`insert into ?? (${columns.map(() => '??').join(', ')}) select ${columns.map(() => '??').join(', ')} from ??`, [`${table}__new`, ...columns, ...columns, table]);
                await trx.schema.dropTable(table);
                await trx.schema.renameTable(`${table}__new`, table);
            }
        });
    }
    finally {
        await knex.raw('pragma foreign_keys = on');
    }

    return true;
};

// Answers whether it changed anything.
export const createSystemTables = async (knex: Knex): Promise<boolean> => {

    let changed = false;
    for (const [name, build] of Object.entries(tables)) {
        if (!await knex.schema.hasTable(name)) {
            await knex.schema.createTable(name, (t) => build(t, knex));
            await created[name]?.(knex);
            changed = true;
        }
    }

    for (const { table, done, upgrade } of upgrades) {
        if (!await done(knex)) {
            // In one transaction (SQLite rebuilds the table to change its key), so a crash leaves the old table.
            await knex.transaction((trx) => trx.schema.alterTable(table, upgrade));
            changed = true;
        }
    }

    changed = await upgradeUserTables(knex) || changed;

    // The one row of credential stamps (credential-stamp.ts): inserted where it is missing, so a start that finds it
    // writes nothing.
    if (!await knex('osprey_authstamp').first('id').where({ id: 1 })) {
        await knex('osprey_authstamp').insert({ id: 1, stamp: 0 }).onConflict('id').ignore();
        changed = true;
    }

    return changed;
};
