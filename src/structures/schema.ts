import Joi from 'joi';

import { byteSize, timeZone } from '../config';
import { maximoTypeNames } from './types';


// The Joi schema of one YAML file under structures/. The YAML reference (docs/yaml-reference.md) is generated from
// the descriptions and examples here (npm run docs), so they are written for the people who write the YAML; every
// key has both (test/structures/reference.test.ts).

const attributeName = /^[a-z][a-z0-9_]*$/;
const upperName = /^[A-Z][A-Z0-9_]*$/;
const groupName = Joi.string().pattern(upperName);
const scalar = Joi.alternatives(Joi.string(), Joi.number(), Joi.boolean());

const reserved = ['rowstamp', 'href', 'localref'];

export const attributeSchema = Joi.object({
    type: Joi.string().valid(...maximoTypeNames).required().description('Maximo type: upper, aln, lower, integer, smallint, bigint, decimal, amount, date, datetime, yorn or clob (`maxtype` is read as `type`)').example('upper'),
    length: Joi.number().integer().min(1).max(32000).description('maximum length (strings) or precision (decimal, amount)').example(25),
    scale: Joi.number().integer().min(0).max(10).description('decimal places (decimal, amount; default 2)').example(2),
    title: Joi.string().description('the label shown to users (jsonschemas, apimeta)').example('Work Order'),
    description: Joi.string().description('a longer explanation').example('The number of the work order, unique per site'),
    required: Joi.boolean().default(false).description('a value must be given on create and cannot be cleared').example(true),
    default: Joi.alternatives(scalar, Joi.string().valid('NOW')).description('the value on create when none is given; NOW for the current date/time').example('WAPPR'),
    domain: Joi.string().pattern(upperName).description('the domain (value list) that validates the attribute; adds {attr}_description').example('WOSTATUS'),
    lookup: Joi.string().description('the lookup (under `lookups`) that lists and validates allowed values').example('asset'),
    generated: Joi.boolean().default(false).description('the server assigns the value; clients cannot write it').example(true),
    autokey: Joi.alternatives(Joi.boolean(), Joi.object({
        prefix: Joi.string().allow('').default('').description('text put before the number').example('WO'),
        start: Joi.number().integer().min(0).default(1000).description('the first number given').example(1000)
    })).description('a key generated when a create does not give one (like wonum), unique per site: `true`, or the prefix and first number').example({ prefix: '', start: 1000 }),
    readonly: Joi.boolean().default(false).description('clients can read but never write it').example(true),
    persistent: Joi.boolean().default(true).description('false: never stored as a column — accepted in writes (like memo), or computed when read by a plugin (server.registerComputed)').example(false),
    index: Joi.boolean().default(false).description('create a database index on it').example(true),
    secret: Joi.boolean().default(false).description('answered only at the top of a direct read\'s select where its object reveals it; never through a relation, child, aggregate, where, order, search, distinct, group-by, lookup, report or schema; cannot be a key, join, lookup value, owner, status or search attribute').example(true),
    search: Joi.boolean().default(false).description('searched by oslc.searchTerms when no searchAttributes are given').example(true)
}).rename('maxtype', 'type');

const joinSchema = Joi.object().pattern(attributeName, Joi.string().pattern(attributeName)).min(1)
    .description('parent attribute → child (or related) attribute; all pairs must match').example({ wonum: 'wonum', siteid: 'siteid' });

const objectKeys = {
    object: Joi.string().pattern(upperName).required().description('the business object (MBO) name').example('WORKORDER'),
    table: Joi.string().pattern(attributeName).description('the database table (default: the object name in lower case); a table is one structure\'s, and so is a record\'s business object (`object`): two structures of one object stop the start').example('workorder'),
    description: Joi.string().description('what the object holds').example('Work orders with their tasks'),
    uniqueColumn: Joi.string().pattern(attributeName).required().description('the numeric internal id attribute (generated bigint)').example('workorderid'),
    primaryKey: Joi.array().items(Joi.string().pattern(attributeName)).min(1).unique().required().description('the key attributes in Maximo\'s order; they make the resource id').example(['siteid', 'wonum']),
    attributes: Joi.object().pattern(Joi.string().pattern(attributeName).invalid(...reserved), attributeSchema).min(1).required()
        .description('the attributes (columns), by lower-case name; rowstamp, href and localref are reserved').example({ wonum: { type: 'upper', length: 25, required: true } }),
    indexes: Joi.array().items(Joi.array().items(Joi.string().pattern(attributeName)).min(1).unique()).default([])
        .description('database indexes over several attributes, e.g. [[siteid, status]] for a site\'s counts by status (one attribute: `index: true`)').example([['siteid', 'status']]),
    children: Joi.object().pattern(Joi.string().pattern(attributeName), Joi.link('#child')).description('child objects written with the record (nested arrays in JSON), by name; `doclinks: { attachments: true }` gives the record attachments')
        .example({ woactivity: { object: 'WOACTIVITY', uniqueColumn: 'woactivityid', primaryKey: ['taskid'], join: { wonum: 'parent', siteid: 'siteid' }, attributes: {} } })
};

// A child is the attachments of the record when it says `attachments`, else a child object: chosen by that key
// rather than tried in turn, so that a mistake in a child is reported as itself, not as "matches no type".
export const childSchema = Joi.alternatives().conditional('.attachments', {
    is: Joi.exist(),
    then: Joi.object({
        attachments: Joi.boolean().valid(true).required().description('the doclinks child: attachments of the record').example(true),
        maxSize: byteSize.description('the largest document attached to one of these records (bytes, or e.g. 20mb); at most OSPREY_MAX_ATTACHMENT').example('20mb')
    }),
    otherwise: Joi.object({
        ...objectKeys,
        join: joinSchema.required()
    })
}).id('child').description('a child object, or the attachments of the record');

const relationSchema = Joi.object({
    structure: Joi.string().required().description('the object structure related to').example('MXAPIASSET'),
    cardinality: Joi.string().valid('one', 'many').default('one').description('one: a record or none (asset.description); many: a collection').example('many'),
    join: joinSchema.required(),
    onDelete: Joi.string().valid('restrict', 'cascade', 'ignore').description('what deleting this record does to related records (default: restrict for many, ignore for one)').example('cascade'),
    description: Joi.string().description('what the relation is').example('The asset the work order is for')
});

const lookupSchema = Joi.object({
    structure: Joi.string().description('the object structure whose records are the allowed values').example('MXAPIASSET'),
    domain: Joi.string().pattern(upperName).description('or: the domain whose values are allowed').example('WORKTYPE'),
    value: Joi.string().pattern(attributeName).description('the attribute of the looked-up record that holds the value').example('assetnum'),
    where: Joi.string().description('an oslc.where filter on the looked-up structure, checked at start; :attr takes the value of the record being edited').example('siteid=:siteid and status!="DECOMMISSIONED"'),
    description: Joi.string().description('what the lookup offers').example('Assets of the work order\'s site')
}).xor('structure', 'domain').with('structure', 'value')
    // A domain's values are all allowed: a where there would be ignored, so it is refused.
    .without('domain', ['where', 'value'])
    .messages({ 'object.without': 'a lookup of a domain offers all its values: {{#peer}} is for a lookup of a structure, and would be ignored here' });

const savedQuerySchema = Joi.object({
    title: Joi.string().required().description('the title listed by the structure\'s queries (apimeta)').example('Assets of a site'),
    description: Joi.string().description('a longer explanation').example('Every asset of the site given as sqp:site'),
    where: Joi.string().required().description('the oslc.where clause, checked at start; :name is bound from the sqp:name query parameter').example('siteid=:site'),
    params: Joi.object().pattern(Joi.string(), Joi.object({
        type: Joi.string().valid(...maximoTypeNames).default('aln').description('the Maximo type of the value').example('upper'),
        required: Joi.boolean().default(false).description('a request without sqp:NAME is refused').example(true)
    })).default({}).description('the parameters the where reads (:name), each given as sqp:name=value').example({ site: { type: 'upper', required: true } })
});

const actionSchema = Joi.object({
    name: Joi.string().required().description('wsmethod:NAME, workflow:NAME, system:NAME or a plain name').example('wsmethod:changeStatus'),
    handler: Joi.string().required().description('the name a plugin registered with registerAction').example('changeStatus'),
    description: Joi.string().description('what the action does').example('Change the status of the work order'),
    scope: Joi.string().valid('record', 'collection').default('record').description('record: ?action= on a record; collection: on the collection').example('collection')
});

// A workflow (issue 35): named nodes, each one step; a route names the next node, none ends the workflow.
const nodeName = Joi.string().pattern(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/);
const routeSchema = Joi.object({
    instruction: Joi.string().max(254).required().description('what the assignee is offered (wfaction.instruction)').example('Approve the work order'),
    next: nodeName.description('the node this route leads to; none: the workflow ends').example('approved')
});

const nodeSchema = Joi.object({
    description: Joi.string().description('what the node is for').example('The supervisor decides'),
    if: Joi.string().description('a condition in oslc.where syntax on the record; then `then` or `else` follows').example('wopriority<3'),
    then: nodeName.description('the node when the condition holds; none: the workflow ends').example('review'),
    else: nodeName.description('the node when it does not; none: the workflow ends').example('approved'),
    status: Joi.string().description('a status change, through the status transitions (a history row with the memo of the assignment that led here)').example('APPR'),
    memo: Joi.string().max(254).description('the memo of the status change when no assignment gives one').example('Approved'),
    set: Joi.object().pattern(Joi.string().pattern(attributeName), scalar.allow(null)).min(1).description('attribute values written to the record, as a PATCH would').example({ lead: 'WILSON' }),
    action: Joi.string().description('an action of the structure, run by name (wsmethod:NAME, or a plugin\'s)').example('wsmethod:changeStatus'),
    payload: Joi.object().description('the payload of the action').example({ status: 'INPRG' }),
    task: Joi.object({
        description: Joi.string().max(200).required().description('what the assignment asks of its assignee').example('Approve the work order'),
        groups: Joi.array().items(groupName.invalid('EVERYONE')).unique().default([]).description('every active member of each group gets an assignment; one completes it for all').example(['SUPERVISORS']),
        users: Joi.array().items(Joi.string().pattern(/^[A-Z0-9][A-Z0-9_.@-]{0,29}$/)).unique().default([]).description('userids that get an assignment').example(['SMITH']),
        dueHours: Joi.number().min(0).description('the assignment\'s duedate, this many hours after it is made').example(48)
    }).or('groups', 'users').description('waits for a user: an MXAPIWFASSIGNMENT record per assignee').example({ description: 'Approve the work order', groups: ['SUPERVISORS'], dueHours: 48 }),
    positive: routeSchema.description('a task\'s route when the assignment is completed with accepted: true').example({ instruction: 'Approve', next: 'approved' }),
    negative: routeSchema.description('a task\'s route when the assignment is completed with accepted: false').example({ instruction: 'Reject', next: 'rejected' }),
    next: nodeName.description('the node that follows a status, set or action node; none: the workflow ends').example('review')
}).xor('if', 'status', 'set', 'action', 'task')
    .with('then', 'if').with('else', 'if').with('memo', 'status').with('payload', 'action')
    .with('task', ['positive', 'negative']).with('positive', 'task').with('negative', 'task')
    .oxor('next', 'if').oxor('next', 'task');

const workflowSchema = Joi.object({
    description: Joi.string().description('what the workflow does').example('Send the work order to a supervisor for approval'),
    condition: Joi.string().description('where the workflow may start (oslc.where syntax on the record); anywhere when absent').example('status in ["WAPPR","APPR"]'),
    start: nodeName.required().description('the first node').example('submit'),
    nodes: Joi.object().pattern(nodeName, nodeSchema).min(1).required().description('the steps, by name: each one of if, status, set, action or task').example({ submit: { status: 'WAPPR', next: 'review' } })
});

// A date pattern of YYYY, MM, DD, HH, mm and ss (src/reports/format.ts); anything else is printed as written.
const datePattern = Joi.string().pattern(/YYYY|MM|DD|HH|mm|ss/).max(40)
    .messages({ 'string.pattern.base': '{{#label}} is a date pattern of YYYY, MM, DD, HH, mm and ss (YYYY-MM-DD HH:mm), not {{#value}}' });

const reportColumnSchema = Joi.alternatives(Joi.string(), Joi.object({
    name: Joi.string().required().description('the value: an attribute, an attribute of a 1:1 relation or an aggregate').example('asset.description'),
    title: Joi.string().min(1).max(100).description('the heading (PDF and CSV); the attribute\'s title by default').example('Asset'),
    width: Joi.number().min(20).max(800).description('the column\'s width in points (1/72 in); a longer text wraps. By default as wide as its content needs').example(160),
    format: datePattern.description('a date or datetime column\'s pattern, instead of the report\'s dateFormat or datetimeFormat').example('DD/MM/YYYY')
})).description('a column: its name, or { name, title, width, format }');

const reportSchema = Joi.object({
    name: Joi.string().pattern(/^[\w.-]+$/).required().description('the report\'s name, as asked for by reportname').example('woprint.rptdesign'),
    title: Joi.string().required().description('the title listed by ?action=listreports').example('Work order details'),
    columns: Joi.array().items(reportColumnSchema).min(1).description('the columns in order: attributes, attributes of a 1:1 relation (asset.description) or aggregates (woactivity._dbcount); each a name or { name, title, width, format }').example(['wonum', { name: 'description', width: 200 }, { name: 'reportdate', title: 'Reported', format: 'DD/MM/YYYY' }]),
    handler: Joi.string().description('a report renderer registered by a plugin instead of the column table').example('plainText'),
    where: Joi.string().description('which records the report covers (oslc.where syntax, checked at start; :name parameters come from the query parameter name)').example('siteid=:site'),
    timezone: timeZone.description('the time zone its datetimes print in (OSPREY_REPORT_TIMEZONE by default)').example('Europe/London'),
    dateFormat: datePattern.description('how a date prints (YYYY-MM-DD by default)').example('DD/MM/YYYY'),
    datetimeFormat: datePattern.description('how a datetime prints, in the report\'s time zone (YYYY-MM-DD HH:mm by default)').example('DD/MM/YYYY HH:mm'),
    groupBy: Joi.string().description('a column (an attribute of the structure, stored or computed by a plugin with SQL) whose values group the records, each group followed by its subtotals').example('siteid'),
    totals: Joi.array().items(Joi.string()).min(1).unique().description('numeric columns summed per group and for the whole report (with the records counted)').example(['estdur']),
    bom: Joi.boolean().default(false).description('true: the CSV starts with a UTF-8 byte-order mark (the request\'s bom=0|1 decides otherwise)').example(true)
}).or('columns', 'handler');

const accessSchema = Joi.object({
    read: Joi.array().items(groupName).default([]).description('groups that may read the records').example(['EVERYONE']),
    insert: Joi.array().items(groupName).default([]).description('groups that may create records').example(['PLANNERS']),
    update: Joi.array().items(groupName).default([]).description('groups that may change records').example(['PLANNERS', 'SUPERVISORS']),
    delete: Joi.array().items(groupName).default([]).description('groups that may delete records').example(['PLANNERS']),
    actions: Joi.array().items(groupName).default([]).description('groups that may run the actions and workflows').example(['PLANNERS']),
    owner: Joi.string().description('an attribute holding a userid: users who are not administrators see, change and create only the records that name them').example('userid')
}).description('groups granted each right; administrators pass everything; EVERYONE means every user');

export const structureSchema = Joi.object({
    name: Joi.string().pattern(upperName).required().description('the object structure name; the file is named after it in lower case; URLs match it case-insensitively').example('MXAPIWODETAIL'),
    title: Joi.string().description('the structure\'s label (apimeta)').example('Work orders'),
    app: Joi.string().pattern(upperName).description('the application name, used for UI links and authorization').example('WOTRACK'),
    pageSize: Joi.number().integer().min(1).description('the default oslc.pageSize of queries (100 when absent)').example(50),
    ...objectKeys,
    relations: Joi.object().pattern(Joi.string().pattern(attributeName), relationSchema).default({})
        .description('other structures reached by name (asset.description in a select or where), by relation name').example({ asset: { structure: 'MXAPIASSET', join: { assetnum: 'assetnum', siteid: 'siteid' } } }),
    lookups: Joi.object().pattern(Joi.string().pattern(attributeName), lookupSchema).default({})
        .description('the lists of allowed values attributes name with `lookup:`, by name').example({ location: { structure: 'MXAPILOCATION', value: 'location', where: 'siteid=:siteid' } }),
    statuses: Joi.object().pattern(Joi.string(), Joi.array().items(Joi.string())).description('allowed status transitions: status → next statuses').example({ WAPPR: ['APPR', 'CAN'], APPR: ['INPRG', 'CAN'] }),
    statusAttribute: Joi.string().pattern(attributeName).default('status').description('the attribute the status transitions apply to').example('status'),
    statusHistory: Joi.string().pattern(attributeName).description('the child that records each status change').example('wostatus'),
    savedQueries: Joi.object().pattern(Joi.string(), savedQuerySchema).default({})
        .description('named queries asked for with savedQuery=NAME, by name').example({ OPENWO: { title: 'Open work orders', where: 'status="WAPPR"' } }),
    actions: Joi.array().items(actionSchema).default([]).description('the actions clients run with ?action=NAME, each handled by a plugin').example([{ name: 'wsmethod:changeStatus', handler: 'changeStatus' }]),
    workflows: Joi.object().pattern(Joi.string().pattern(upperName).max(30), workflowSchema).default({})
        .description('processes started on a record with ?action=workflow:NAME: nodes of conditions, status changes, attribute values, actions and tasks assigned to users (MXAPIWFASSIGNMENT)').example({ WOAPPROVE: { start: 'submit', nodes: { submit: { status: 'APPR' } } } }),
    reports: Joi.array().items(reportSchema).default([]).description('reports listed by ?action=listreports and rendered by genreport').example([{ name: 'woprint.rptdesign', title: 'Work order details', columns: ['wonum', 'status'] }]),
    access: accessSchema.default().description('groups granted read, insert, update, delete and actions (EVERYONE: every user; administrators pass everything), and `owner`: an attribute holding a userid that keeps users who are not administrators to their own records').example({ read: ['EVERYONE'], update: ['PLANNERS'] })
}).shared(childSchema);

export const domainSchema = Joi.object({
    description: Joi.string().description('what the domain lists').example('Work order statuses'),
    type: Joi.string().valid('ALN', 'NUMERIC', 'SYNONYM').default('ALN').description('ALN: text values; NUMERIC: numbers; SYNONYM: values that each stand for an internal value').example('SYNONYM'),
    values: Joi.array().items(Joi.object({
        value: Joi.alternatives(Joi.string(), Joi.number()).required().description('the value stored and sent').example('APPR'),
        description: Joi.string().allow('').default('').description('its label ({attr}_description)').example('Approved'),
        maxvalue: Joi.string().description('the internal value a synonym stands for').example('APPR')
    })).min(1).unique('value').required().description('the values, in order').example([{ value: 'APPR', description: 'Approved' }])
});

export const domainFileSchema = Joi.object({
    domains: Joi.object().pattern(Joi.string().pattern(upperName), domainSchema).required().description('the domains (value lists) attributes name with `domain:`, by upper-case name').example({ WORKTYPE: { values: [{ value: 'PM', description: 'Preventive' }] } })
});
