import * as Code from '@hapi/code';

import { expectError, type Context, type Probe } from './ledger';


const { expect } = Code;

// The npm client's SystemService against the system service (service/system, plugins/services/system.ts): every
// method, each answer read back by hand.

const system = async (t: Context) => {

    const service = t.admin.getSystemService();
    const names = await service.getAllPropertyNames();
    expect(names).to.include(['mxe.int.enableosauth', 'mxe.adminEmail', 'osprey.maxPageSize']);
    expect((await t.get('/service/system?action=wsmethod:getPropertyNames')).body).to.equal(names);

    expect(await service.getPropertyValue('mxe.int.enableosauth')).to.equal('1');
    expect(await service.isOsSecurityOn()).to.be.true();
    expect(await service.isManage()).to.be.false();

    const asked = Date.now();
    const date = await service.getDate();
    expect(date).to.be.an.instanceof(Date);
    expect(Number(date!.getTime())).to.be.within(Math.floor(asked / 1000) * 1000, Date.now());

    expect(await service.setPropertyValue('mxe.adminEmail', 'admin@example.com')).to.be.true();
    expect(await service.getPropertyValue('mxe.adminEmail')).to.equal('admin@example.com');
    expect((await t.get('/service/system?action=wsmethod:getProperty&propName=mxe.adminEmail')).body).to.equal({ return: 'admin@example.com' });
    expect(await service.liveRefreshProperty('mxe.adminEmail')).to.be.true();

    // WILSON is no administrator: the same calls of his client are refused, and the value stays.
    const wilson = t.wilson.getSystemService();
    const refused = await expectError(() => wilson.setPropertyValue('mxe.adminEmail', 'wilson@example.com'));
    expect(refused.status).to.equal(403);
    expect(refused.body.Error.message).to.contain('setProperty');
    expect((await expectError(() => wilson.liveRefreshProperty('mxe.adminEmail'))).status).to.equal(403);
    expect(await wilson.getPropertyValue('mxe.adminEmail')).to.equal('admin@example.com');

    // An undeclared property is a 404 naming it; a fixed one cannot be set.
    const missing = await expectError(() => service.getPropertyValue('mxe.db.url'));
    expect([missing.status, missing.body.Error.message]).to.equal([404, 'BMXAA8727E - No system property mxe.db.url is declared; wsmethod:getPropertyNames lists them.']);
    expect((await expectError(() => service.setPropertyValue('mxe.int.enableosauth', '0'))).status).to.equal(400);
    expect(await service.setPropertyValue('mxe.adminEmail', '')).to.be.true();

    t.works(...['getAllPropertyNames', 'getPropertyValue', 'liveRefreshProperty', 'setPropertyValue', 'isManage', 'getDate', 'isOsSecurityOn'].map((method) => `SystemService.${method}`));
};

export const systemProbes: Probe[] = [
    { title: 'the system service: the date, Manage, OS security and the properties', run: system }
];
