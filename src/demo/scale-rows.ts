import { seededRandom } from './random';
import { demoRows, demoVocabulary } from './seed';


export interface ScaleSize {
    assets: number;
    workorders: number;
}

export type TableRow = readonly [table: string, row: Record<string, unknown>];

const tasks = ['Isolate and lock out', 'Inspect', 'Replace part', 'Test run', 'Clean up', 'Record readings'];

// Rows like the demo's, at any size, in a fixed order from a fixed seed: the same size gives the same rows.
// They are yielded one by one so a data set of millions of rows never sits in memory at once; people and
// locations come from the demo itself (scaled: one location per hundred assets).
export const scaleRows = function* (size: ScaleSize): Generator<TableRow> {

    const { sites, orgid, epoch, hour, iso, equipment, problems, crafts, items, statusPaths } = demoVocabulary;
    const day = 24 * hour;
    const base = demoRows({ locationsPerSite: Math.max(24, Math.ceil(size.assets / 200)), assets: 0, workorders: 0 });
    for (const table of ['person', 'locations']) {
        for (const row of base[table]!) {
            yield [table, row];
        }
    }

    const personIds = base.person!.map((row) => String(row.personid));
    const locationsBySite: Record<string, string[]> = { BEDFORD: [], NASHUA: [] };
    base.locations!.filter((row) => row.type === 'OPERATING').forEach((row) => locationsBySite[String(row.siteid)]!.push(String(row.location)));

    // A work order names one of its site's assets and copies its description and location: keep just those.
    const random = seededRandom(20260106);
    const assetsBySite: Record<string, number[]> = { BEDFORD: [], NASHUA: [] };
    const assetDescription: string[] = [];
    const assetLocation: string[] = [];
    for (let i = 0; i < size.assets; ++i) {
        const siteid = sites[i % 2]!;
        const assetnum = String(11000 + i);
        const kind = random.pick(equipment);
        const status = random.pick(['OPERATING', 'OPERATING', 'OPERATING', 'OPERATING', 'NOT READY', 'BROKEN', 'DECOMMISSIONED']);
        const installed = epoch - random.int(200, 3000) * day;
        const location = random.pick(locationsBySite[siteid]!);
        assetsBySite[siteid]!.push(i);
        assetDescription.push(`${kind} #${i + 1}`);
        assetLocation.push(location);
        yield ['asset', { assetnum, siteid, orgid, description: assetDescription[i], status, statusdate: iso(installed + 30 * day), location, assettype: kind.split(' ').pop()!.toUpperCase().slice(0, 16), serialnum: `SN-${(i * 7919 % 1000000).toString().padStart(6, '0')}`, installdate: iso(installed).slice(0, 10), purchaseprice: random.int(500, 250000) + random.int(0, 99) / 100, priority: random.int(1, 5), parent: i % 10 > 0 && i > 20 ? String(11000 + i - (i % 10)) : null, isrunning: status === 'OPERATING', changedate: iso(installed + 30 * day), changeby: 'MAXADMIN' }];
        yield ['assetmeter', { assetnum, siteid, metername: 'RUNHOURS', measureunitid: 'HOURS', lastreading: random.int(100, 40000), lastreadingdate: iso(epoch - random.int(1, 30) * day), active: true }];
        if (i % 3 === 0) {
            yield ['assetmeter', { assetnum, siteid, metername: 'TEMP-F', measureunitid: 'DEG F', lastreading: random.int(60, 220) + 0.5, lastreadingdate: iso(epoch - random.int(1, 30) * day), active: true }];
        }
    }

    for (let i = 0; i < size.workorders; ++i) {
        const siteid = sites[i % 2]!;
        const wonum = String(1000 + i);
        const status = random.pick(['WAPPR', 'WAPPR', 'APPR', 'APPR', 'WSCH', 'WMATL', 'INPRG', 'INPRG', 'COMP', 'CLOSE', 'CLOSE', 'CAN']);
        const worktype = random.pick(['CM', 'CM', 'PM', 'PM', 'PM', 'EM', 'CP', 'EV']);
        const asset = assetsBySite[siteid]!.length ? random.pick(assetsBySite[siteid]!) : undefined;
        const reported = epoch - random.int(0, 730) * day + random.int(0, 23) * hour;
        const started = ['INPRG', 'COMP', 'CLOSE'].includes(status);
        const finished = ['COMP', 'CLOSE'].includes(status);
        const estlabhrs = random.int(1, 40) / 2;
        const path = statusPaths[status]!;
        const owner = random.pick(personIds);
        const location = asset === undefined ? null : assetLocation[asset];
        yield ['workorder', {
            wonum, siteid, orgid, description: `${random.pick(problems)} - ${asset === undefined ? 'building' : assetDescription[asset]}`, status, statusdate: iso(reported + (path.length - 1) * day), worktype, wopriority: random.int(1, 5),
            location, assetnum: asset === undefined ? null : String(11000 + asset), reportedby: random.pick(personIds), reportdate: iso(reported), owner, lead: random.pick(personIds), assignedownerid: i % 4 === 0 ? 'WILSON' : owner,
            schedstart: iso(reported + 2 * day), schedfinish: iso(reported + 4 * day), targstartdate: iso(reported + day), targcompdate: iso(reported + 7 * day),
            actstart: started ? iso(reported + 2 * day + hour) : null, actfinish: finished ? iso(reported + 3 * day) : null,
            estdur: estlabhrs, estlabhrs, actlabhrs: finished ? estlabhrs + random.int(-2, 4) / 2 : 0, estlabcost: estlabhrs * 45, actlabcost: finished ? estlabhrs * 47.5 : 0,
            estmatcost: random.int(0, 2000), actmatcost: finished ? random.int(0, 2000) : 0, parent: null, changedate: iso(reported + (path.length - 1) * day), changeby: 'MAXADMIN'
        }];

        const taskCount = random.int(0, 3);
        for (let j = 1; j <= taskCount; ++j) {
            yield ['woactivity', { parent: wonum, siteid, taskid: j * 10, description: `Step ${j}: ${random.pick(tasks)}`, status: finished ? 'COMP' : 'WAPPR', estdur: random.int(1, 8) / 2, schedstart: iso(reported + 2 * day + j * hour) }];
        }

        for (let j = random.int(1, 2); j > 0; --j) {
            const [craft, laborcode] = random.pick(crafts);
            yield ['wplabor', { wonum, siteid, laborcode, craft, skilllevel: random.pick(['FIRSTCLASS', 'SECONDCLASS', 'APPRENTICE']), regularhrs: random.int(1, 16) / 2, quantity: 1 }];
        }

        for (let j = random.int(0, 2); j > 0; --j) {
            const [itemnum, description] = random.pick(items);
            yield ['wpmaterial', { wonum, siteid, itemnum, description, itemqty: random.int(1, 6), location, storeloc: `${siteid === 'BEDFORD' ? 'BR' : 'NA'}STORE1` }];
        }

        for (let j = 0; j < path.length; ++j) {
            yield ['wostatus', { wonum, siteid, status: path[j], changedate: iso(reported + j * day), changeby: j ? 'MAXADMIN' : 'WILSON', memo: j ? null : 'Reported' }];
        }
    }
};
