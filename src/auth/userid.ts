// The one spelling a user name is stored, looked up and compared in (issue 34): Unicode NFC, then the ASCII
// letters a–z upper-cased, and nothing else changed. String.prototype.toUpperCase is not used: it folds distinct
// letters onto one (dotless ı and long ſ onto I and S, ß onto SS), so `wılson` would have logged in as WILSON.
// Other letters keep the case they were created with (`müller` and `MÜLLER` are two names). NFC only joins
// spellings of one text (an é sent as e and a combining accent); it never joins two different letters.
export const normalUserid = (name: string): string => name.normalize('NFC').replace(/[a-z]+/g, (letters) => letters.toUpperCase());
