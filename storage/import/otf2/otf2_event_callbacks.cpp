// libotf2's global event callbacks: C functions that forward each record to its
// Otf2EventMapper handler. No exception crosses into libotf2: the first one is kept by the
// mapper and the callback interrupts the read (the importer rethrows it).

#include "model/json_text.h"
#include "storage/import/otf2/otf2_event_mapper.h"

#include <string>

namespace strata::storage {

namespace {

Otf2EventMapper& mapper(void* data)
{
    return *static_cast<Otf2EventMapper*>(data);
}

/// Runs a handler for libotf2; an exception is kept and interrupts the read.
template<class Body>
OTF2_CallbackCode run(void* data, Body&& body) noexcept
{
    try {
        body(mapper(data));
        return OTF2_CALLBACK_SUCCESS;
    } catch (...) {
        mapper(data).fail(std::current_exception());
        return OTF2_CALLBACK_INTERRUPT;
    }
}

OTF2_CallbackCode onEnter(OTF2_LocationRef loc, OTF2_TimeStamp t, void* data,
    OTF2_AttributeList* attrs, OTF2_RegionRef region)
{
    return run(data, [&](Otf2EventMapper& m) { m.enter(loc, t, attrs, region); });
}

OTF2_CallbackCode onLeave(
    OTF2_LocationRef loc, OTF2_TimeStamp t, void* data, OTF2_AttributeList*, OTF2_RegionRef region)
{
    return run(data, [&](Otf2EventMapper& m) { m.leave(loc, t, region); });
}

OTF2_CallbackCode onSend(OTF2_LocationRef loc, OTF2_TimeStamp t, void* data, OTF2_AttributeList*,
    uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t bytes)
{
    return run(data, [&](Otf2EventMapper& m) { m.send(loc, t, receiver, comm, tag, bytes); });
}

OTF2_CallbackCode onIsend(OTF2_LocationRef loc, OTF2_TimeStamp t, void* data, OTF2_AttributeList*,
    uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t bytes, uint64_t /*request*/)
{
    return run(data, [&](Otf2EventMapper& m) { m.send(loc, t, receiver, comm, tag, bytes); });
}

OTF2_CallbackCode onRecv(OTF2_LocationRef loc, OTF2_TimeStamp t, void* data, OTF2_AttributeList*,
    uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t bytes)
{
    return run(data, [&](Otf2EventMapper& m) { m.receive(loc, t, sender, comm, tag, bytes); });
}

OTF2_CallbackCode onIrecv(OTF2_LocationRef loc, OTF2_TimeStamp t, void* data, OTF2_AttributeList*,
    uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t bytes, uint64_t /*request*/)
{
    return run(data, [&](Otf2EventMapper& m) { m.receive(loc, t, sender, comm, tag, bytes); });
}

OTF2_CallbackCode onCollectiveEnd(OTF2_LocationRef loc, OTF2_TimeStamp, void* data,
    OTF2_AttributeList*, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
    uint64_t received)
{
    return run(
        data, [&](Otf2EventMapper& m) { m.collectiveEnd(loc, op, comm, root, sent, received); });
}

OTF2_CallbackCode onMetric(OTF2_LocationRef loc, OTF2_TimeStamp t, void* data, OTF2_AttributeList*,
    OTF2_MetricRef metric, uint8_t count, const OTF2_Type* types, const OTF2_MetricValue* values)
{
    return run(data, [&](Otf2EventMapper& m) { m.metric(loc, t, metric, count, types, values); });
}

OTF2_CallbackCode onProgramBegin(OTF2_LocationRef loc, OTF2_TimeStamp t, void* data,
    OTF2_AttributeList* attrs, OTF2_StringRef name, uint32_t, const OTF2_StringRef*)
{
    return run(data, [&](Otf2EventMapper& m) { m.program(loc, t, attrs, true, name); });
}

OTF2_CallbackCode onProgramEnd(
    OTF2_LocationRef loc, OTF2_TimeStamp t, void* data, OTF2_AttributeList* attrs, int64_t status)
{
    return run(data, [&](Otf2EventMapper& m) { m.program(loc, t, attrs, false, status); });
}

OTF2_CallbackCode onParameterString(OTF2_LocationRef loc, OTF2_TimeStamp, void* data,
    OTF2_AttributeList*, OTF2_ParameterRef parameter, OTF2_StringRef value)
{
    return run(data, [&](Otf2EventMapper& m) {
        m.parameter(loc, parameter, model::jsonString(m.definitions().string(value)));
    });
}

OTF2_CallbackCode onParameterInt(OTF2_LocationRef loc, OTF2_TimeStamp, void* data,
    OTF2_AttributeList*, OTF2_ParameterRef parameter, int64_t value)
{
    return run(
        data, [&](Otf2EventMapper& m) { m.parameter(loc, parameter, std::to_string(value)); });
}

OTF2_CallbackCode onParameterUnsigned(OTF2_LocationRef loc, OTF2_TimeStamp, void* data,
    OTF2_AttributeList*, OTF2_ParameterRef parameter, uint64_t value)
{
    return run(
        data, [&](Otf2EventMapper& m) { m.parameter(loc, parameter, std::to_string(value)); });
}

}  // namespace

void Otf2EventMapper::setCallbacks(OTF2_GlobalEvtReaderCallbacks* c)
{
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(c, onEnter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(c, onLeave);
    OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(c, onSend);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(c, onIsend);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(c, onRecv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(c, onIrecv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(c, onCollectiveEnd);
    OTF2_GlobalEvtReaderCallbacks_SetMetricCallback(c, onMetric);
    OTF2_GlobalEvtReaderCallbacks_SetProgramBeginCallback(c, onProgramBegin);
    OTF2_GlobalEvtReaderCallbacks_SetProgramEndCallback(c, onProgramEnd);
    OTF2_GlobalEvtReaderCallbacks_SetParameterStringCallback(c, onParameterString);
    OTF2_GlobalEvtReaderCallbacks_SetParameterIntCallback(c, onParameterInt);
    OTF2_GlobalEvtReaderCallbacks_SetParameterUnsignedIntCallback(c, onParameterUnsigned);
}

}  // namespace strata::storage
