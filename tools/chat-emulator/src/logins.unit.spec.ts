import { describe, expect, it } from 'vitest';
import { Logins } from './logins.js';

const phone = '15550001111';

describe('counting logged-in connections of a device', () => {
  it('counts each connection until it ends, once, and keeps the most at once', () => {
    const logins = new Logins();
    const [first, second] = [{}, {}];
    logins.loggedIn(phone, first);
    logins.loggedIn(phone, second);
    logins.ended(phone, first);
    logins.ended(phone, first);
    expect([logins.count(phone), logins.peak(phone)]).toEqual([1, 2]);
    logins.ended(phone, second);
    expect([logins.count(phone), logins.peak(phone)]).toEqual([0, 2]);
  });

  it('starts the most-at-once again when a device is linked anew, from the connections still open', () => {
    const logins = new Logins();
    const [first, second] = [{}, {}];
    logins.loggedIn(phone, first);
    logins.loggedIn(phone, second);
    logins.ended(phone, first);
    logins.linked(phone);
    expect([logins.count(phone), logins.peak(phone)]).toEqual([1, 1]);
    logins.ended(phone, second);
    logins.loggedIn(phone, {});
    expect([logins.count(phone), logins.peak(phone)]).toEqual([1, 1]);
  });

  it('knows nothing of a number no connection logged in as', () => {
    const logins = new Logins();
    logins.ended(phone, {});
    expect([logins.count(phone), logins.peak(phone)]).toEqual([0, 0]);
  });
});
