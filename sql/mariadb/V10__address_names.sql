-- Display names on Reply-To and the recipients (issue 12): one line per named address, "<field><index> TAB
-- <name>" (field r, t, c or b; see queue/control/AddressNames), NULL for a mail without such names (every row
-- queued before V10). The address columns keep their bare addresses, so everything keyed on them is unchanged.
-- At most 101 lines of a 200-character name each. Same change in every sql/<db>/V10.
ALTER TABLE MAIL_MESSAGE ADD COLUMN ADDRESS_NAMES TEXT;
