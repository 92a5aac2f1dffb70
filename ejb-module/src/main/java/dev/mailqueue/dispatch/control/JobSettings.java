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
        return atLeast(1, name, value, fallback);
    }

    /**
     * @return the value as a long of 0 or more, or {@code fallback} when blank
     * @throws IllegalArgumentException naming the property when the value is negative or not a number
     */
    static long nonNegativeLong(String name, String value, long fallback) {
        return atLeast(0, name, value, fallback);
    }

    private static long atLeast(long min, String name, String value, long fallback) {
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            long parsed = Long.parseLong(value.strip());
            if (parsed < min) {
                throw new IllegalArgumentException("job parameter " + name + " must be at least " + min + ", was " + value);
            }
            return parsed;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("job parameter " + name + " must be a whole number, was " + value, e);
        }
    }
}
