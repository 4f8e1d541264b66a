// fastpath.h from C++: the extern "C" guards (the library's symbols link
// by their C names) and the inline section compile as C++11.
//
//   g++ -std=c++11 -Wall -Wextra -Werror -c cxx_header.cpp $(pkg-config --cflags fastpath)
//   g++ cxx_header.o $(pkg-config --libs fastpath) && ./a.out
#include <fastpath.h>
// Twice, as a header included by two headers is: the include guards.
#include <fastpath.h>

#include <cstdio>
#include <cstring>

namespace {

int failures = 0;

void expect(bool ok, const char *what)
{
	if (!ok) {
		std::printf("cxx_header: FAIL %s\n", what);
		failures++;
	}
}

uint16_t be(unsigned char hi, unsigned char lo)
{
	const unsigned char b[2] = { hi, lo };
	uint16_t w;
	std::memcpy(&w, b, 2);
	return w;
}

} // namespace

int main()
{
	// The IPv4 header of RFC 1071's examples' kind: its checksum is 0xb861.
	unsigned char header[20] = {
		0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
		0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
	};
	unsigned char data[200], copy[200];
	for (unsigned i = 0; i < sizeof(data); i++)
		data[i] = static_cast<unsigned char>(i * 37 + 11);

	// Through the inline wrappers (the macros) and the library's symbols.
	expect(fp_ipv4_cksum(header) == be(0xb8, 0x61), "fp_ipv4_cksum inline");
	expect((fp_ipv4_cksum)(header) == be(0xb8, 0x61), "fp_ipv4_cksum symbol");
	for (size_t len = 0; len <= sizeof(data); len++) {
		expect(fp_raw_cksum(data, len) == (fp_raw_cksum)(data, len), "fp_raw_cksum");
		expect(fp_checksum(data, len) == (fp_checksum)(data, len), "fp_checksum");
	}
	expect(fp_ipv4_phdr_cksum(header, FP_TX_TCP_SEG) == (fp_ipv4_phdr_cksum)(header, FP_TX_TCP_SEG),
	       "fp_ipv4_phdr_cksum");

	struct fp_csum state;
	fp_csum_init(&state);
	fp_csum_update(&state, data, 77);
	fp_csum_update_copy(&state, copy + 77, data + 77, sizeof(data) - 77);
	expect(fp_csum_finish(&state) == fp_checksum(data, sizeof(data)), "fp_csum_finish");
	expect(std::memcmp(copy + 77, data + 77, sizeof(data) - 77) == 0, "fp_csum_update_copy");

	uint16_t (*fn)(const void *, size_t) = &fp_checksum; // the library's address
	expect(fn(data, 100) == fp_checksum(data, 100), "&fp_checksum");

	enum fp_error e = FP_ERR_NULL;
	expect(fp_strerror(e) != nullptr && fp_active_tier() != nullptr, "fp_strerror, fp_active_tier");
	expect(fp_l4_checksum(header, sizeof(header), nullptr) == FP_ERR_NULL, "fp_l4_checksum");

	std::printf("cxx_header: %s, tier %s\n", failures ? "FAILED" : "ok", fp_active_tier());
	return failures ? 1 : 0;
}
