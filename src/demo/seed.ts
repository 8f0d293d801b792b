import type { Knex } from 'knex';

import type { Registry } from '../structures/registry';
import { seededRandom } from './random';


const sites = ['BEDFORD', 'NASHUA'] as const;
const orgid = 'EAGLENA';
const epoch = Date.UTC(2026, 0, 5, 8, 0, 0);
const hour = 3600_000;

const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString();

const firstNames = ['Mike', 'Anna', 'Raj', 'Li', 'Maria', 'John', 'Fatima', 'Tom', 'Grace', 'Ivan', 'Sofia', 'Ken', 'Olga', 'Pedro', 'Aisha', 'Ben', 'Chen', 'Dana', 'Eli', 'Hana', 'Omar', 'Zoe'];
const lastNames = ['Smith', 'Garcia', 'Patel', 'Wong', 'Silva', 'Brown', 'Khan', 'Jones', 'Kim', 'Petrov', 'Rossi', 'Sato', 'Novak', 'Diaz', 'Okafor', 'Miller', 'Zhang', 'Cohen', 'Berg', 'Tanaka', 'Haddad', 'Evans'];
const equipment = ['Centrifugal Pump', 'Air Compressor', 'Conveyor Belt', 'Boiler', 'Chiller', 'Cooling Tower', 'Fire Pump', 'Generator', 'HVAC Unit', 'Hydraulic Press', 'Motor', 'Fan', 'Gearbox', 'Heat Exchanger', 'Valve Actuator'];
const problems = ['Leaking seal', 'Excessive vibration', 'Overheating', 'Noisy bearing', 'Scheduled inspection', 'Lubrication', 'Filter replacement', 'Belt alignment', 'Calibration', 'Electrical fault', 'Pressure drop', 'Annual overhaul'];
const crafts = [['ELECT', 'ELECTRICIAN'], ['MECH', 'MECHANIC'], ['PLUMB', 'PLUMBER'], ['HVAC', 'HVACTECH']] as const;
const items = [['0-1001', 'Mechanical seal'], ['0-2044', 'Bearing 6205'], ['0-3310', 'V-belt B52'], ['0-4120', 'Air filter'], ['0-5002', 'Hydraulic oil 20 l'], ['0-6107', 'Contactor 40 A']] as const;

// The path a work order took to reach its status; each step is a status-history row.
const statusPaths: Record<string, string[]> = {
    WAPPR: ['WAPPR'],
    APPR: ['WAPPR', 'APPR'],
    WSCH: ['WAPPR', 'APPR', 'WSCH'],
    WMATL: ['WAPPR', 'APPR', 'WMATL'],
    INPRG: ['WAPPR', 'APPR', 'INPRG'],
    COMP: ['WAPPR', 'APPR', 'INPRG', 'COMP'],
    CLOSE: ['WAPPR', 'APPR', 'INPRG', 'COMP', 'CLOSE'],
    CAN: ['WAPPR', 'CAN']
};

export interface DemoSize {
    locationsPerSite: number;
    assets: number;
    workorders: number;
}

export const demoSize: DemoSize = { locationsPerSite: 24, assets: 240, workorders: 600 };

// The demo rows, derived from a fixed seed: the same rows on every fresh start.
export const demoRows = (size: DemoSize = demoSize) => {

    const random = seededRandom(20260105);
    const rows: Record<string, Record<string, unknown>[]> = { person: [], locations: [], asset: [], assetmeter: [], workorder: [], woactivity: [], wplabor: [], wpmaterial: [], wostatus: [] };

    const people = [['MAXADMIN', 'Max', 'Admin'], ['WILSON', 'Mike', 'Wilson'], ...firstNames.map((first, i) => [`${lastNames[i]!.toUpperCase()}${first[0]}`, first, lastNames[i]!])];
    people.forEach(([personid, first, last], i) => {

        rows.person!.push({ personid, firstname: first, lastname: last, displayname: `${first} ${last}`, primaryemail: `${first!.toLowerCase()}.${last!.toLowerCase()}@eagle.example`, primaryphone: `(603) 555-${String(1000 + i * 37).slice(-4)}`, status: i % 11 === 10 ? 'INACTIVE' : 'ACTIVE', locationsite: sites[i % 2] });
    });
    const personIds = people.map(([personid]) => personid!);

    const locationsBySite: Record<string, string[]> = {};
    for (const siteid of sites) {
        const prefix = siteid === 'BEDFORD' ? 'BR' : 'NA';
        locationsBySite[siteid] = [];
        for (let i = 0; i < size.locationsPerSite; ++i) {
            const storeroom = i < 2;
            const location = storeroom ? `${prefix}STORE${i + 1}` : `${prefix}${100 + i * 10}`;
            const status = storeroom ? 'OPERATING' : random.pick(['OPERATING', 'OPERATING', 'OPERATING', 'NOT READY', 'DECOMMISSIONED']);
            rows.locations!.push({ location, siteid, orgid, description: storeroom ? `${siteid} storeroom ${i + 1}` : `${siteid} building ${Math.floor(i / 6) + 1}, area ${i % 6 + 1}`, type: storeroom ? 'STOREROOM' : 'OPERATING', status, statusdate: iso(epoch - 400 * 24 * hour), parent: storeroom || i < 6 ? null : `${prefix}${100 + (i % 6) * 10}`, changedate: iso(epoch - 400 * 24 * hour), changeby: 'MAXADMIN' });
            if (!storeroom) {
                locationsBySite[siteid]!.push(location);
            }
        }
    }

    const assetsBySite: Record<string, string[]> = { BEDFORD: [], NASHUA: [] };
    for (let i = 0; i < size.assets; ++i) {
        const siteid = sites[i % 2]!;
        const assetnum = String(11000 + i);
        const kind = random.pick(equipment);
        const status = random.pick(['OPERATING', 'OPERATING', 'OPERATING', 'OPERATING', 'NOT READY', 'BROKEN', 'DECOMMISSIONED']);
        const installed = epoch - random.int(200, 3000) * 24 * hour;
        assetsBySite[siteid]!.push(assetnum);
        rows.asset!.push({ assetnum, siteid, orgid, description: `${kind} #${i + 1}`, status, statusdate: iso(installed + 30 * 24 * hour), location: random.pick(locationsBySite[siteid]!), assettype: kind.split(' ').pop()!.toUpperCase().slice(0, 16), serialnum: `SN-${(i * 7919 % 100000).toString().padStart(5, '0')}`, installdate: iso(installed).slice(0, 10), purchaseprice: random.int(500, 250000) + random.int(0, 99) / 100, priority: random.int(1, 5), parent: i % 10 > 0 && i > 20 ? String(11000 + i - (i % 10)) : null, isrunning: status === 'OPERATING', changedate: iso(installed + 30 * 24 * hour), changeby: 'MAXADMIN' });
        rows.assetmeter!.push({ assetnum, siteid, metername: 'RUNHOURS', measureunitid: 'HOURS', lastreading: random.int(100, 40000), lastreadingdate: iso(epoch - random.int(1, 30) * 24 * hour), active: true });
        if (i % 3 === 0) {
            rows.assetmeter!.push({ assetnum, siteid, metername: 'TEMP-F', measureunitid: 'DEG F', lastreading: random.int(60, 220) + 0.5, lastreadingdate: iso(epoch - random.int(1, 30) * 24 * hour), active: true });
        }
    }

    for (let i = 0; i < size.workorders; ++i) {
        const siteid = sites[i % 2]!;
        const wonum = String(1000 + i);
        const status = random.pick(['WAPPR', 'WAPPR', 'APPR', 'APPR', 'WSCH', 'WMATL', 'INPRG', 'INPRG', 'COMP', 'CLOSE', 'CLOSE', 'CAN']);
        const worktype = random.pick(['CM', 'CM', 'PM', 'PM', 'PM', 'EM', 'CP', 'EV']);
        const assetnum = random.pick(assetsBySite[siteid]!);
        const asset = rows.asset!.find((row) => row.assetnum === assetnum)!;
        const reported = epoch - random.int(0, 365) * 24 * hour + random.int(0, 23) * hour;
        const started = ['INPRG', 'COMP', 'CLOSE'].includes(status);
        const finished = ['COMP', 'CLOSE'].includes(status);
        const estlabhrs = random.int(1, 40) / 2;
        const path = statusPaths[status]!;
        const owner = random.pick(personIds);
        rows.workorder!.push({
            wonum, siteid, orgid, description: `${random.pick(problems)} - ${asset.description}`, status, statusdate: iso(reported + (path.length - 1) * 24 * hour), worktype, wopriority: random.int(1, 5),
            location: asset.location, assetnum, reportedby: random.pick(personIds), reportdate: iso(reported), owner, lead: random.pick(personIds), assignedownerid: i % 4 === 0 ? 'WILSON' : owner,
            schedstart: iso(reported + 2 * 24 * hour), schedfinish: iso(reported + 4 * 24 * hour), targstartdate: iso(reported + 24 * hour), targcompdate: iso(reported + 7 * 24 * hour),
            actstart: started ? iso(reported + 2 * 24 * hour + hour) : null, actfinish: finished ? iso(reported + 3 * 24 * hour) : null,
            estdur: estlabhrs, estlabhrs, actlabhrs: finished ? estlabhrs + random.int(-2, 4) / 2 : 0, estlabcost: estlabhrs * 45, actlabcost: finished ? estlabhrs * 47.5 : 0,
            estmatcost: random.int(0, 2000), actmatcost: finished ? random.int(0, 2000) : 0, parent: null, changedate: iso(reported + (path.length - 1) * 24 * hour), changeby: 'MAXADMIN'
        });

        const tasks = random.int(0, 3);
        for (let j = 1; j <= tasks; ++j) {
            rows.woactivity!.push({ parent: wonum, siteid, taskid: j * 10, description: `Step ${j}: ${random.pick(['Isolate and lock out', 'Inspect', 'Replace part', 'Test run', 'Clean up', 'Record readings'])}`, status: finished ? 'COMP' : 'WAPPR', estdur: random.int(1, 8) / 2, schedstart: iso(reported + (2 * 24 + j) * hour) });
        }

        for (let j = random.int(1, 2); j > 0; --j) {
            const [craft, laborcode] = random.pick(crafts);
            rows.wplabor!.push({ wonum, siteid, laborcode, craft, skilllevel: random.pick(['FIRSTCLASS', 'SECONDCLASS', 'APPRENTICE']), regularhrs: random.int(1, 16) / 2, quantity: 1 });
        }

        for (let j = random.int(0, 2); j > 0; --j) {
            const [itemnum, description] = random.pick(items);
            rows.wpmaterial!.push({ wonum, siteid, itemnum, description, itemqty: random.int(1, 6), location: asset.location, storeloc: `${siteid === 'BEDFORD' ? 'BR' : 'NA'}STORE1` });
        }

        path.forEach((step, index) => rows.wostatus!.push({ wonum, siteid, status: step, changedate: iso(reported + index * 24 * hour), changeby: index ? 'MAXADMIN' : 'WILSON', memo: index ? null : 'Reported' }));
    }

    return rows;
};

// Fills the demo structures that are loaded; tables of structures not present are skipped.
// Answers the rows written, by table (for the server's log).
export const seedDemoData = async (knex: Knex, registry: Registry, size: DemoSize = demoSize): Promise<Record<string, number>> => {

    const tables = new Set(registry.objects().map((object) => object.table));
    const rows = demoRows(size);
    const written: Record<string, number> = {};
    await knex.transaction(async (trx) => {

        for (const [table, list] of Object.entries(rows)) {
            if (tables.has(table) && list.length) {
                await trx.batchInsert(table, list, 100);
                written[table] = list.length;
            }
        }
    });
    return written;
};

// The word lists and dates the demo rows are made of, so the generator of large data sets
// (src/demo/scale-rows.ts) writes rows that look like the demo's.
export const demoVocabulary = { sites, orgid, epoch, hour, iso, equipment, problems, crafts, items, statusPaths };
