; ModuleID = 'wgc'
target datalayout = "e-m:e-p:32:32-i1:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%TourTB = type opaque
%"class.Texture2D<float4>" = type opaque
%"class.Buffer<uint>" = type opaque
%"class.StructuredBuffer<float2>" = type opaque
%class.ByteAddressBuffer = type opaque
%"class.RWStructuredBuffer<uint>" = type opaque
%"class.RWStructuredBuffer<float4>" = type opaque
%TourCB = type opaque
%"class.ConstantBuffer<TourConstants>" = type opaque
%"class.ConstantBuffer<TourPush>" = type opaque
%class.SamplerState = type opaque

@TourTB = external constant %TourTB
@g_TourTex = external constant %"class.Texture2D<float4>"
@g_TourIndices = external constant %"class.Buffer<uint>"
@g_TourPairs = external constant %"class.StructuredBuffer<float2>"
@g_TourRaw = external constant %class.ByteAddressBuffer
@g_TourCounters = external constant %"class.RWStructuredBuffer<uint>"
@g_TourOut = external constant %"class.RWStructuredBuffer<float4>"
@TourCB = external constant %TourCB
@g_TourConsts = external constant %"class.ConstantBuffer<TourConstants>"
@g_TourPush = external constant %"class.ConstantBuffer<TourPush>"
@g_TourSampler = external constant %class.SamplerState

declare void @TourCoalesceNode()

declare void @TourEmpty()

declare void @TourEntry()

declare void @TourShared()

declare void @TourThread()

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!24, !25, !33, !39, !60, !64}
!wgc.spirv.entryPoints = !{!70, !71, !72, !73, !74}

!0 = !{!"wgc 0.1.0"}
!1 = !{i32 1, i32 9}
!2 = !{!"lib", i32 6, i32 9}
!3 = !{!4, !13, !18, !22}
!4 = !{!5, !6, !8, !10, !12}
!5 = !{i32 0, %TourTB* @TourTB, !"TourTB", i32 0, i32 2, i32 1, i32 15, i32 0, null}
!6 = !{i32 1, %"class.Texture2D<float4>"* @g_TourTex, !"g_TourTex", i32 0, i32 3, i32 1, i32 2, i32 0, !7}
!7 = !{i32 0, i32 9}
!8 = !{i32 2, %"class.Buffer<uint>"* @g_TourIndices, !"g_TourIndices", i32 0, i32 4, i32 1, i32 10, i32 0, !9}
!9 = !{i32 0, i32 5}
!10 = !{i32 3, %"class.StructuredBuffer<float2>"* @g_TourPairs, !"g_TourPairs", i32 0, i32 5, i32 1, i32 12, i32 0, !11}
!11 = !{i32 1, i32 8}
!12 = !{i32 4, %class.ByteAddressBuffer* @g_TourRaw, !"g_TourRaw", i32 0, i32 6, i32 1, i32 11, i32 0, null}
!13 = !{!14, !16}
!14 = !{i32 0, %"class.RWStructuredBuffer<uint>"* @g_TourCounters, !"g_TourCounters", i32 0, i32 8, i32 1, i32 12, i1 true, i1 false, i1 false, !15}
!15 = !{i32 1, i32 4}
!16 = !{i32 1, %"class.RWStructuredBuffer<float4>"* @g_TourOut, !"g_TourOut", i32 1, i32 0, i32 1, i32 12, i1 false, i1 false, i1 false, !17}
!17 = !{i32 1, i32 16}
!18 = !{!19, !20, !21}
!19 = !{i32 0, %TourCB* @TourCB, !"TourCB", i32 0, i32 0, i32 1, i32 128, null}
!20 = !{i32 1, %"class.ConstantBuffer<TourConstants>"* @g_TourConsts, !"g_TourConsts", i32 0, i32 1, i32 1, i32 32, null}
!21 = !{i32 2, %"class.ConstantBuffer<TourPush>"* @g_TourPush, !"g_TourPush", i32 -1, i32 -1, i32 1, i32 8, null}
!22 = !{!23}
!23 = !{i32 0, %class.SamplerState* @g_TourSampler, !"g_TourSampler", i32 0, i32 7, i32 1, i32 0, null}
!24 = !{null, !"", null, !3, null}
!25 = !{void ()* @TourCoalesceNode, !"TourCoalesceNode", null, null, !26}
!26 = !{i32 8, i32 15, i32 13, i32 2, i32 15, !27, i32 16, i32 -1, i32 20, !28, i32 4, !31, i32 5, !32}
!27 = !{!"TourCoalesce", i32 2}
!28 = !{!29}
!29 = !{i32 1, i32 65, i32 2, !30, i32 3, i32 8}
!30 = !{i32 0, i32 8, i32 2, i32 4}
!31 = !{i32 8, i32 1, i32 1}
!32 = !{i32 0}
!33 = !{void ()* @TourEmpty, !"TourEmpty", null, null, !34}
!34 = !{i32 8, i32 15, i32 13, i32 2, i32 15, !35, i32 16, i32 -1, i32 20, !36, i32 4, !38, i32 5, !32}
!35 = !{!"TourEmpty", i32 0}
!36 = !{!37}
!37 = !{i32 1, i32 9, i32 3, i32 16}
!38 = !{i32 1, i32 1, i32 1}
!39 = !{void ()* @TourEntry, !"TourEntry", null, null, !40}
!40 = !{i32 8, i32 15, i32 13, i32 1, i32 14, i1 true, i32 15, !41, i32 16, i32 -1, i32 22, !42, i32 20, !43, i32 21, !47, i32 4, !59, i32 5, !32}
!41 = !{!"TourEntry", i32 0}
!42 = !{i32 64, i32 1, i32 1}
!43 = !{!44}
!44 = !{i32 1, i32 97, i32 2, !45}
!45 = !{i32 0, i32 20, i32 1, !46, i32 2, i32 4}
!46 = !{i32 0, i32 5, i32 3}
!47 = !{!48, !52, !55, !56, !57}
!48 = !{i32 1, i32 262, i32 2, !49, i32 3, i32 1, i32 0, !51}
!49 = !{i32 0, i32 12, i32 1, !50, i32 2, i32 4}
!50 = !{i32 0, i32 5, i32 1}
!51 = !{!"TourShared", i32 0}
!52 = !{i32 1, i32 6, i32 2, !53, i32 3, i32 32, i32 0, !54}
!53 = !{i32 0, i32 20, i32 2, i32 4}
!54 = !{!"TourThread", i32 0}
!55 = !{i32 1, i32 6, i32 2, !30, i32 3, i32 4, i32 0, !27}
!56 = !{i32 1, i32 10, i32 3, i32 2, i32 0, !35}
!57 = !{i32 1, i32 10, i32 3, i32 1, i32 6, i1 true, i32 0, !58}
!58 = !{!"TourOptional", i32 0}
!59 = !{i32 32, i32 1, i32 1}
!60 = !{void ()* @TourShared, !"TourShared", null, null, !61}
!61 = !{i32 8, i32 15, i32 13, i32 1, i32 15, !51, i32 16, i32 -1, i32 22, !31, i32 20, !62, i32 4, !42, i32 5, !32}
!62 = !{!63}
!63 = !{i32 1, i32 357, i32 2, !49}
!64 = !{void ()* @TourThread, !"TourThread", null, null, !65}
!65 = !{i32 8, i32 15, i32 13, i32 3, i32 15, !54, i32 16, i32 -1, i32 19, i32 3, i32 20, !66, i32 21, !68, i32 4, !38, i32 5, !32}
!66 = !{!67}
!67 = !{i32 1, i32 37, i32 2, !53}
!68 = !{!69, !55}
!69 = !{i32 1, i32 6, i32 2, !53, i32 3, i32 1, i32 0, !54}
!70 = !{void ()* @TourCoalesceNode, !"TourCoalesce"}
!71 = !{void ()* @TourEmpty, !"TourEmpty"}
!72 = !{void ()* @TourEntry, !"TourEntry"}
!73 = !{void ()* @TourShared, !"TourShared"}
!74 = !{void ()* @TourThread, !"TourThread"}
