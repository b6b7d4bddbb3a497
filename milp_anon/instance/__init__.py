"""One problem (criteria, recoding, model options) and one table prepared for it: row types and candidates."""
