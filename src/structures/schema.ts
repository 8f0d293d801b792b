import Joi from 'joi';

import { byteSize, timeZone } from '../config';
import { maximoTypeNames } from './types';


// The Joi schema of one YAML file under structures/. The README's format reference is generated from the
// descriptions here (npm run docs), so they are written for the people who write the YAML.

const attributeName = /^[a-z][a-z0-9_]*$/;
const upperName = /^[A-Z][A-Z0-9_]*$/;
const groupName = Joi.string().pattern(upperName);
const scalar = Joi.alternatives(Joi.string(), Joi.number(), Joi.boolean());

const reserved = ['rowstamp', 'href', 'localref'];

export const attributeSchema = Joi.object({
    type: Joi.string().valid(...maximoTypeNames).required().description('Maximo type: upper, aln, lower, integer, smallint, bigint, decimal, amount, date, datetime, yorn or clob'),
    length: Joi.number().integer().min(1).max(32000).description('maximum length (strings) or precision (decimal, amount)'),
    scale: Joi.number().integer().min(0).max(10).description('decimal places (decimal, amount; default 2)'),
    title: Joi.string().description('the label shown to users (jsonschemas, apimeta)'),
    description: Joi.string().description('a longer explanation'),
    required: Joi.boolean().default(false).description('a value must be given on create and cannot be cleared'),
    default: Joi.alternatives(scalar, Joi.string().valid('NOW')).description('the value on create when none is given; NOW for the current date/time'),
    domain: Joi.string().pattern(upperName).description('the domain (value list) that validates the attribute; adds {attr}_description'),
    lookup: Joi.string().description('the lookup (under `lookups`) that lists and validates allowed values'),
    generated: Joi.boolean().default(false).description('the server assigns the value; clients cannot write it'),
    autokey: Joi.alternatives(Joi.boolean(), Joi.object({
        prefix: Joi.string().allow('').default(''),
        start: Joi.number().integer().min(0).default(1000)
    })).description('a key generated when a create does not give one (like wonum), unique per site'),
    readonly: Joi.boolean().default(false).description('clients can read but never write it'),
    persistent: Joi.boolean().default(true).description('false: accepted in writes (like memo) but never stored as a column'),
    index: Joi.boolean().default(false).description('create a database index on it'),
    secret: Joi.boolean().default(false).description('answered only at the top of a direct read\'s select where its object reveals it; never through a relation, child, aggregate, where, order, search, distinct, group-by, lookup, report or schema; cannot be a key, join, lookup value, owner, status or search attribute'),
    search: Joi.boolean().default(false).description('searched by oslc.searchTerms when no searchAttributes are given')
}).rename('maxtype', 'type');

const joinSchema = Joi.object().pattern(attributeName, Joi.string().pattern(attributeName)).min(1)
    .description('parent attribute → child (or related) attribute; all pairs must match');

const objectKeys = {
    object: Joi.string().pattern(upperName).required().description('the business object (MBO) name, e.g. WORKORDER'),
    table: Joi.string().pattern(attributeName).description('the database table (default: the object name in lower case)'),
    description: Joi.string(),
    uniqueColumn: Joi.string().pattern(attributeName).required().description('the numeric internal id attribute (generated bigint)'),
    primaryKey: Joi.array().items(Joi.string().pattern(attributeName)).min(1).unique().required().description('the key attributes in Maximo\'s order; they make the resource id'),
    attributes: Joi.object().pattern(Joi.string().pattern(attributeName).invalid(...reserved), attributeSchema).min(1).required(),
    indexes: Joi.array().items(Joi.array().items(Joi.string().pattern(attributeName)).min(1).unique()).default([])
        .description('database indexes over several attributes, e.g. [[siteid, status]] for a site\'s counts by status (one attribute: `index: true`)'),
    children: Joi.object().pattern(Joi.string().pattern(attributeName), Joi.link('#child')).description('child objects written with the record (nested arrays in JSON)')
};

export const childSchema = Joi.alternatives(
    Joi.object({
        attachments: Joi.boolean().valid(true).required().description('the doclinks child: attachments of the record'),
        maxSize: byteSize.description('the largest document attached to one of these records (bytes, or e.g. 20mb); at most OSPREY_MAX_ATTACHMENT')
    }),
    Joi.object({
        ...objectKeys,
        join: joinSchema.required()
    })
).id('child');

const relationSchema = Joi.object({
    structure: Joi.string().required().description('the object structure related to'),
    cardinality: Joi.string().valid('one', 'many').default('one'),
    join: joinSchema.required(),
    onDelete: Joi.string().valid('restrict', 'cascade', 'ignore').description('what deleting this record does to related records (default: restrict for many, ignore for one)'),
    description: Joi.string()
});

const lookupSchema = Joi.object({
    structure: Joi.string().description('the object structure whose records are the allowed values'),
    domain: Joi.string().pattern(upperName).description('or: the domain whose values are allowed'),
    value: Joi.string().pattern(attributeName).description('the attribute of the looked-up record that holds the value'),
    where: Joi.string().description('an oslc.where filter; :attr takes the value of the record being edited'),
    description: Joi.string()
}).xor('structure', 'domain').with('structure', 'value');

const savedQuerySchema = Joi.object({
    title: Joi.string().required(),
    description: Joi.string(),
    where: Joi.string().required().description('the oslc.where clause; :name is bound from the sqp:name query parameter'),
    params: Joi.object().pattern(Joi.string(), Joi.object({
        type: Joi.string().valid(...maximoTypeNames).default('aln'),
        required: Joi.boolean().default(false)
    })).default({})
});

const actionSchema = Joi.object({
    name: Joi.string().required().description('wsmethod:NAME, workflow:NAME, system:NAME or a plain name'),
    handler: Joi.string().required().description('the name a plugin registered with registerAction'),
    description: Joi.string(),
    scope: Joi.string().valid('record', 'collection').default('record')
});

// A workflow (issue 35): named nodes, each one step; a route names the next node, none ends the workflow.
const nodeName = Joi.string().pattern(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/);
const routeSchema = Joi.object({
    instruction: Joi.string().max(254).required().description('what the assignee is offered (wfaction.instruction)'),
    next: nodeName.description('the node this route leads to; none: the workflow ends')
});

const nodeSchema = Joi.object({
    description: Joi.string(),
    if: Joi.string().description('a condition in oslc.where syntax on the record; then `then` or `else` follows'),
    then: nodeName,
    else: nodeName,
    status: Joi.string().description('a status change, through the status transitions (a history row with the memo of the assignment that led here)'),
    memo: Joi.string().max(254).description('the memo of the status change when no assignment gives one'),
    set: Joi.object().pattern(Joi.string().pattern(attributeName), scalar.allow(null)).min(1).description('attribute values written to the record, as a PATCH would'),
    action: Joi.string().description('an action of the structure, run by name (wsmethod:NAME, or a plugin\'s)'),
    payload: Joi.object().description('the payload of the action'),
    task: Joi.object({
        description: Joi.string().max(200).required().description('what the assignment asks of its assignee'),
        groups: Joi.array().items(groupName.invalid('EVERYONE')).unique().default([]).description('every active member of each group gets an assignment; one completes it for all'),
        users: Joi.array().items(Joi.string().pattern(/^[A-Z0-9][A-Z0-9_.@-]{0,29}$/)).unique().default([]).description('userids that get an assignment'),
        dueHours: Joi.number().min(0).description('the assignment\'s duedate, this many hours after it is made')
    }).or('groups', 'users').description('waits for a user: an MXAPIWFASSIGNMENT record per assignee'),
    positive: routeSchema.description('a task\'s route when the assignment is completed with accepted: true'),
    negative: routeSchema.description('a task\'s route when the assignment is completed with accepted: false'),
    next: nodeName.description('the node that follows a status, set or action node; none: the workflow ends')
}).xor('if', 'status', 'set', 'action', 'task')
    .with('then', 'if').with('else', 'if').with('memo', 'status').with('payload', 'action')
    .with('task', ['positive', 'negative']).with('positive', 'task').with('negative', 'task')
    .oxor('next', 'if').oxor('next', 'task');

const workflowSchema = Joi.object({
    description: Joi.string(),
    condition: Joi.string().description('where the workflow may start (oslc.where syntax on the record); anywhere when absent'),
    start: nodeName.required().description('the first node'),
    nodes: Joi.object().pattern(nodeName, nodeSchema).min(1).required()
});

// A date pattern of YYYY, MM, DD, HH, mm and ss (src/reports/format.ts); anything else is printed as written.
const datePattern = Joi.string().pattern(/YYYY|MM|DD|HH|mm|ss/).max(40)
    .messages({ 'string.pattern.base': '{{#label}} is a date pattern of YYYY, MM, DD, HH, mm and ss (YYYY-MM-DD HH:mm), not {{#value}}' });

const reportColumnSchema = Joi.alternatives(Joi.string(), Joi.object({
    name: Joi.string().required().description('the value: an attribute, an attribute of a 1:1 relation or an aggregate'),
    title: Joi.string().min(1).max(100).description('the heading (PDF and CSV); the attribute\'s title by default'),
    width: Joi.number().min(20).max(800).description('the column\'s width in points (1/72 in); a longer text wraps. By default as wide as its content needs'),
    format: datePattern.description('a date or datetime column\'s pattern, instead of the report\'s dateFormat or datetimeFormat')
})).description('a column: its name, or { name, title, width, format }');

const reportSchema = Joi.object({
    name: Joi.string().pattern(/^[\w.-]+$/).required().description('e.g. woprint.rptdesign'),
    title: Joi.string().required(),
    columns: Joi.array().items(reportColumnSchema).min(1).description('the columns in order: attributes, attributes of a 1:1 relation (asset.description) or aggregates (woactivity._dbcount); each a name or { name, title, width, format }'),
    handler: Joi.string().description('a report renderer registered by a plugin instead of the column table'),
    where: Joi.string().description('which records the report covers (oslc.where syntax; :name parameters come from the query parameter name)'),
    timezone: timeZone.description('the time zone its datetimes print in (OSPREY_REPORT_TIMEZONE by default)'),
    dateFormat: datePattern.description('how a date prints (YYYY-MM-DD by default)'),
    datetimeFormat: datePattern.description('how a datetime prints, in the report\'s time zone (YYYY-MM-DD HH:mm by default)'),
    groupBy: Joi.string().description('a column (an attribute of the structure) whose values group the records, each group followed by its subtotals'),
    totals: Joi.array().items(Joi.string()).min(1).unique().description('numeric columns summed per group and for the whole report (with the records counted)'),
    bom: Joi.boolean().default(false).description('true: the CSV starts with a UTF-8 byte-order mark (the request\'s bom=0|1 decides otherwise)')
}).or('columns', 'handler');

const accessSchema = Joi.object({
    read: Joi.array().items(groupName).default([]),
    insert: Joi.array().items(groupName).default([]),
    update: Joi.array().items(groupName).default([]),
    delete: Joi.array().items(groupName).default([]),
    actions: Joi.array().items(groupName).default([]),
    owner: Joi.string().description('an attribute holding a userid: users who are not administrators see, change and create only the records that name them')
}).description('groups granted each right; administrators pass everything; EVERYONE means every user');

export const structureSchema = Joi.object({
    name: Joi.string().pattern(upperName).required().description('the object structure name, e.g. MXAPIASSET; URLs match it case-insensitively'),
    title: Joi.string(),
    app: Joi.string().pattern(upperName).description('the application name, used for UI links and authorization'),
    pageSize: Joi.number().integer().min(1).description('the default oslc.pageSize of queries (100 when absent)'),
    ...objectKeys,
    relations: Joi.object().pattern(Joi.string().pattern(attributeName), relationSchema).default({}),
    lookups: Joi.object().pattern(Joi.string().pattern(attributeName), lookupSchema).default({}),
    statuses: Joi.object().pattern(Joi.string(), Joi.array().items(Joi.string())).description('allowed status transitions: status → next statuses'),
    statusAttribute: Joi.string().pattern(attributeName).default('status'),
    statusHistory: Joi.string().pattern(attributeName).description('the child that records each status change'),
    savedQueries: Joi.object().pattern(Joi.string(), savedQuerySchema).default({}),
    actions: Joi.array().items(actionSchema).default([]),
    workflows: Joi.object().pattern(Joi.string().pattern(upperName).max(30), workflowSchema).default({})
        .description('processes started on a record with ?action=workflow:NAME: nodes of conditions, status changes, attribute values, actions and tasks assigned to users (MXAPIWFASSIGNMENT)'),
    reports: Joi.array().items(reportSchema).default([]),
    access: accessSchema.default().description('groups granted read, insert, update, delete and actions (EVERYONE: every user; administrators pass everything), and `owner`: an attribute holding a userid that keeps users who are not administrators to their own records')
}).shared(childSchema);

export const domainSchema = Joi.object({
    description: Joi.string(),
    type: Joi.string().valid('ALN', 'NUMERIC', 'SYNONYM').default('ALN'),
    values: Joi.array().items(Joi.object({
        value: Joi.alternatives(Joi.string(), Joi.number()).required(),
        description: Joi.string().allow('').default(''),
        maxvalue: Joi.string().description('the internal value a synonym stands for')
    })).min(1).unique('value').required()
});

export const domainFileSchema = Joi.object({
    domains: Joi.object().pattern(Joi.string().pattern(upperName), domainSchema).required()
});
