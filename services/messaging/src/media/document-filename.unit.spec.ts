import { describe, expect, it } from 'vitest';
import { documentFilename } from './document-filename.js';

describe('the name of a document sent without filename', () => {
  it.each([
    ['https://files.example.com/reports/Q3%20report.pdf?token=secret#page=2', 'application/pdf', 'Q3 report.pdf'],
    ['https://files.example.com/download', 'application/pdf', 'download'],
    ['https://files.example.com/', 'application/pdf', 'file.pdf'],
    ['https://files.example.com/a/..', 'text/plain', 'file.txt'],
    ['https://files.example.com/%2Fetc%2Fpasswd', 'text/plain', 'file.txt'],
    ['https://files.example.com/bad%E0%A4%A', 'application/zip', 'file.zip'],
    [undefined, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'file.docx'],
    [undefined, 'application/x-unknown-thing', 'file.bin'],
  ])('%s (%s) → %s', (url, mimetype, name) => {
    expect(documentFilename(url, mimetype)).toBe(name);
  });
});
