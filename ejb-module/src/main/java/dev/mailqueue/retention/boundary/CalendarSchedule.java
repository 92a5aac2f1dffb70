package dev.mailqueue.retention.boundary;

import jakarta.ejb.ScheduleExpression;

/**
 * Reads a schedule written as six EJB calendar fields separated by blanks, in this order:
 * second, minute, hour, day of month, month, day of week (Jakarta Enterprise Beans 4.0 §13.3.7,
 * "Calendar-based timer expressions": each field takes that section's syntax, e.g. {@code *},
 * {@code 3}, {@code 1-5}, {@code *}{@code /10}, {@code Mon,Thu}). {@code 0 0 3 * * *} is daily at
 * 03:00:00 in the server's time zone.
 */
final class CalendarSchedule {

    private CalendarSchedule() {
    }

    /**
     * @param schedule six blank-separated fields
     * @return the expression; the timer service checks each field's syntax when the timer is created
     * @throws IllegalArgumentException when there are not exactly six fields
     */
    static ScheduleExpression parse(String schedule) {
        String[] fields = schedule == null ? new String[0] : schedule.strip().split("\\s+");
        if (fields.length != 6) {
            throw new IllegalArgumentException("a schedule needs six fields (second minute hour dayOfMonth month"
                    + " dayOfWeek), e.g. \"0 0 3 * * *\"; got \"" + schedule + "\"");
        }
        return new ScheduleExpression()
                .second(fields[0]).minute(fields[1]).hour(fields[2])
                .dayOfMonth(fields[3]).month(fields[4]).dayOfWeek(fields[5]);
    }
}
