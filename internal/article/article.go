// Package article puts the indefinite article before a word in messages:
// "a number", "an array".
package article

// A returns word after "a", or after "an" when word starts with a vowel
// letter ("an array", "an invalid(9)"). It does not know English
// exceptions ("a unit", "an hour"): it serves the names pond-go puts in
// its messages, kind and field names.
func A(word string) string {
	if word != "" {
		switch word[0] {
		case 'a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U':
			return "an " + word
		}
	}
	return "a " + word
}
