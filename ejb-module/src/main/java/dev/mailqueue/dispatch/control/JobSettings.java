package dev.mailqueue.dispatch.control;

/** Reads the batch properties of the dispatch job, with the clear error a bad value deserves. */
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

    /**
     * @return the value as a number within [0, 1], or {@code fallback} when blank
     * @throws IllegalArgumentException naming the property when the value is outside [0, 1] or not a number
     */
    static double fraction(String name, String value, double fallback) {
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            double parsed = Double.parseDouble(value.strip());
            if (!(parsed >= 0 && parsed <= 1)) {
                throw new IllegalArgumentException("job parameter " + name + " must be within [0, 1], was " + value);
            }
            return parsed;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("job parameter " + name + " must be a number, was " + value, e);
        }
    }

    /**
     * @return the value as one of {@code type}'s constants (case-insensitive), or {@code fallback} when blank
     * @throws IllegalArgumentException naming the property and the allowed values otherwise
     */
    static <E extends Enum<E>> E choice(String name, String value, Class<E> type, E fallback) {
        if (value == null || value.isBlank()) {
            return fallback;
        }
        for (E constant : type.getEnumConstants()) {
            if (constant.name().equalsIgnoreCase(value.strip().replace('-', '_'))) {
                return constant;
            }
        }
        throw new IllegalArgumentException("job parameter " + name + " must be one of "
                + java.util.Arrays.toString(type.getEnumConstants()) + ", was " + value);
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
