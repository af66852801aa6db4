/**
 * Epoch milliseconds as `Date.prototype.toISOString` writes them (`2026-12-05T03:21:23.456Z`), several times
 * faster: every event a read decodes carries its commit's append time this way, and `toISOString` costs
 * about half a microsecond. The date and time to the second are computed once per second met (events read
 * together were mostly appended within seconds), the civil date by Hinnant's `civil_from_days`. Outside
 * years 1970 to 9999, `toISOString` itself.
 */
export function isoTime(ms: number): string {
  if (!(ms >= 0 && ms < LAST_MS)) return new Date(ms).toISOString();
  const second = Math.floor(ms / 1000);
  if (second !== cached.second) cached = { second, prefix: secondPrefix(second) };
  const millis = ms - second * 1000;
  return `${cached.prefix}${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
}

/** 10000-01-01T00:00:00.000Z: from there on the year has five digits and a sign. */
const LAST_MS = 253_402_300_800_000;

let cached = { second: -1, prefix: '' };

const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/** `YYYY-MM-DDTHH:MM:SS.` of a second since the epoch (0 to 253,402,300,799). */
function secondPrefix(second: number): string {
  const days = Math.floor(second / 86_400);
  const inDay = second - days * 86_400;
  // civil_from_days: days since 1970-01-01 to a proleptic Gregorian date, in eras of 400 years from 0000-03-01.
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(inDay / 3600);
  const minutes = Math.floor((inDay - hours * 3600) / 60);
  const seconds = inDay - hours * 3600 - minutes * 60;
  return `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}T${two(hours)}:${two(minutes)}:${two(seconds)}.`;
}
