/* Intel PT packets as text: each packet's name and its line in perf 6.1's
 * `-D` dump (".  OFFSET:  BYTES... TEXT").
 *
 * Invariants: the strings are perf 6.1's, byte for byte (names, field
 * order, hex/decimal); text is truncated safely to the caller's buffer and
 * the full length is returned. No allocation, no I/O. */
#include <pmukit/intelpt.h>

#include <inttypes.h>
#include <stdio.h>

static const char *const names[PK_IPT_NR_TYPES] = {
	[PK_IPT_BAD] = "Bad packet!", [PK_IPT_PAD] = "PAD", [PK_IPT_TNT] = "TNT",
	[PK_IPT_TIP_PGD] = "TIP.PGD", [PK_IPT_TIP_PGE] = "TIP.PGE", [PK_IPT_TSC] = "TSC",
	[PK_IPT_TMA] = "TMA", [PK_IPT_MODE_EXEC] = "MODE.Exec", [PK_IPT_MODE_TSX] = "MODE.TSX",
	[PK_IPT_MTC] = "MTC", [PK_IPT_TIP] = "TIP", [PK_IPT_FUP] = "FUP", [PK_IPT_CYC] = "CYC",
	[PK_IPT_VMCS] = "VMCS", [PK_IPT_PSB] = "PSB", [PK_IPT_PSBEND] = "PSBEND",
	[PK_IPT_CBR] = "CBR", [PK_IPT_TRACESTOP] = "TraceSTOP", [PK_IPT_PIP] = "PIP",
	[PK_IPT_OVF] = "OVF", [PK_IPT_MNT] = "MNT", [PK_IPT_PTWRITE] = "PTWRITE",
	[PK_IPT_PTWRITE_IP] = "PTWRITE", [PK_IPT_EXSTOP] = "EXSTOP", [PK_IPT_EXSTOP_IP] = "EXSTOP",
	[PK_IPT_MWAIT] = "MWAIT", [PK_IPT_PWRE] = "PWRE", [PK_IPT_PWRX] = "PWRX",
	[PK_IPT_BBP] = "BBP", [PK_IPT_BIP] = "BIP", [PK_IPT_BEP] = "BEP", [PK_IPT_BEP_IP] = "BEP",
	[PK_IPT_CFE] = "CFE", [PK_IPT_CFE_IP] = "CFE", [PK_IPT_EVD] = "EVD",
};

const char *pk_ipt_pkt_name(pk_ipt_pkt_type type)
{
	return (unsigned)type < PK_IPT_NR_TYPES ? names[type] : names[PK_IPT_BAD];
}

static size_t tnt_desc(const pk_ipt_packet *pkt, const char *name, char *out, size_t size)
{
	char bits[72];
	uint64_t v = pkt->payload;
	unsigned n = pkt->count < 64 ? pkt->count : 64;
	for (unsigned i = 0; i < n; i++, v <<= 1)
		bits[i] = v >> 63 ? 'T' : 'N';
	bits[n] = '\0';
	return (size_t)snprintf(out, size, "%s %s (%u)", name, bits, pkt->count);
}

static size_t power_desc(const pk_ipt_packet *pkt, const char *name, char *out, size_t size)
{
	uint64_t v = pkt->payload;
	if (pkt->type == PK_IPT_MWAIT)
		return (size_t)snprintf(out, size, "%s 0x%" PRIx64 " Hints 0x%x Extensions 0x%x", name, v,
					(unsigned)(v & 0xff), (unsigned)((v >> 32) & 3));
	if (pkt->type == PK_IPT_PWRE)
		return (size_t)snprintf(out, size, "%s 0x%" PRIx64 " HW:%u CState:%u Sub-CState:%u",
					name, v, (unsigned)!!(v & 0x80), (unsigned)((v >> 12) & 0xf),
					(unsigned)((v >> 8) & 0xf));
	return (size_t)snprintf(out, size,
				"%s 0x%" PRIx64 " Last CState:%u Deepest CState:%u Wake Reason 0x%x",
				name, v, (unsigned)((v >> 4) & 0xf), (unsigned)(v & 0xf),
				(unsigned)((v >> 8) & 0xf));
}

size_t pk_ipt_pkt_desc(const pk_ipt_packet *pkt, char *out, size_t size)
{
	const char *name = pk_ipt_pkt_name(pkt->type);
	uint64_t v = pkt->payload;
	/* perf's hex is "0x%llx" ("0x0" for zero, unlike "%#llx") */
#define HEX "0x%" PRIx64
	switch (pkt->type) {
	case PK_IPT_TNT: return tnt_desc(pkt, name, out, size);
	case PK_IPT_TIP_PGD: case PK_IPT_TIP_PGE: case PK_IPT_TIP: case PK_IPT_FUP:
		if (!pkt->count)
			return (size_t)snprintf(out, size, "%s no ip", name);
		/* fall through */
	case PK_IPT_CYC: case PK_IPT_VMCS: case PK_IPT_MTC: case PK_IPT_MNT: case PK_IPT_CBR:
	case PK_IPT_TSC: return (size_t)snprintf(out, size, "%s " HEX, name, v);
	case PK_IPT_TMA:
		return (size_t)snprintf(out, size, "%s CTC 0x%x FC 0x%x", name, (unsigned)v, pkt->count);
	case PK_IPT_MODE_EXEC:
		return (size_t)snprintf(out, size, "%s IF:%d %" PRId64, name, !!(pkt->count & 4), (int64_t)v);
	case PK_IPT_MODE_TSX:
		return (size_t)snprintf(out, size, "%s TXAbort:%u InTX:%u", name, (unsigned)(v >> 1) & 1,
					(unsigned)v & 1);
	case PK_IPT_PIP: /* bit 0 is NR; CR3 bits 51:5 are bits 47:1 */
		return (size_t)snprintf(out, size, "%s " HEX " (NR=%d)", name, (v & ~(uint64_t)1) >> 1, (int)(v & 1));
	case PK_IPT_PTWRITE: case PK_IPT_PTWRITE_IP:
		return (size_t)snprintf(out, size, "%s " HEX " IP:%d", name, v, pkt->type == PK_IPT_PTWRITE_IP);
	case PK_IPT_BEP: case PK_IPT_EXSTOP: return (size_t)snprintf(out, size, "%s IP:0", name);
	case PK_IPT_BEP_IP: case PK_IPT_EXSTOP_IP: return (size_t)snprintf(out, size, "%s IP:1", name);
	case PK_IPT_MWAIT: case PK_IPT_PWRE: case PK_IPT_PWRX: return power_desc(pkt, name, out, size);
	case PK_IPT_BBP:
		return (size_t)snprintf(out, size, "%s SZ %s-byte Type " HEX, name, pkt->count ? "4" : "8", v);
	case PK_IPT_BIP:
		return (size_t)snprintf(out, size, "%s ID 0x%02x Value " HEX, name, pkt->count, v);
	case PK_IPT_CFE: case PK_IPT_CFE_IP:
		return (size_t)snprintf(out, size, "%s IP:%d Type 0x%02x Vector " HEX, name,
					pkt->type == PK_IPT_CFE_IP, pkt->count, v);
	case PK_IPT_EVD:
		return (size_t)snprintf(out, size, "%s Type 0x%02x Payload " HEX, name, pkt->count, v);
	default: return (size_t)snprintf(out, size, "%s", name);
	}
#undef HEX
}

size_t pk_ipt_dump_line(const uint8_t *buf, size_t len, size_t pos, pk_ipt_ctx *ctx,
			char *line, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	if (pos >= len || size < PK_IPT_LINE_MAX)
		return 0;
	pk_ipt_packet pkt;
	pk_ipt_decode(buf + pos, len - pos, ctx, &pkt);
	size_t n = pkt.span, at = (size_t)snprintf(line, size, ".  %08zx: ", pos);
	for (size_t i = 0; i < 16; i++) {
		line[at++] = ' ';
		line[at++] = i < n ? hex[buf[pos + i] >> 4] : ' ';
		line[at++] = i < n ? hex[buf[pos + i] & 15] : ' ';
	}
	line[at++] = ' ';
	pk_ipt_pkt_desc(&pkt, line + at, size - at);
	return n;
}
