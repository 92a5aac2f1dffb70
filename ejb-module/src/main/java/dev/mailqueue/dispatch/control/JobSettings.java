package dev.mailqueue.dispatch.control;

/** Reads the numeric batch properties of the dispatch job, with the clear error a bad value deserves. */
final class JobSettings {

    private JobSettings() {
    }

    /**
     * @return the value as a positive int, or {@code fallback} when blank
     * @throws IllegalArgumentException naming the property when the value is not a positive int
     */
    static int positiveInt(String name, String value, int fallback) {
        long parsed = positiveLong(name, value, fallback);
        if (parsed > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("job parameter " + name + " must be at most " + Integer.MAX_VALUE);
        }
        return (int) parsed;
    }

    /**
     * @return the value as a positive long, or {@code fallback} when blank
     * @throws IllegalArgumentException naming the property when the value is not a positive long
     */
    static long positiveLong(String name, String value, long fallback) {
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            long parsed = Long.parseLong(value.strip());
            if (parsed < 1) {
                throw new IllegalArgumentException("job parameter " + name + " must be at least 1, was " + value);
            }
            return parsed;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("job parameter " + name + " must be a whole number, was " + value, e);
        }
    }
}
